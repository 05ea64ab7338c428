"""Tools the tests and the benchmarks share: serving the app, driving it in a real
headless Chromium, a throwaway redis-server. Not part of the app or of the `attention`
library."""
