"""Tools the tests and the benchmarks share: serving the app and driving it in a real
headless Chromium. Not part of the app or of the `attention` library."""
