"""Search indexes beside the memories table: keyword (FTS5, Chinese segmentation) and the in-process vector cache."""
