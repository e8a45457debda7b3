"""Text understanding shared by writing, recall and upkeep: language, segmentation, entities, dates, facts."""
