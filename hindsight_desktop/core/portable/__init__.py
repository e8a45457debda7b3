"""Export and import: file formats in and out, and restoring imported memories."""
