"""Secret redaction before anything is stored."""
