"""The embedding model: loading, the default model's conversion, thread choice, calibration, switching
and re-embedding."""
