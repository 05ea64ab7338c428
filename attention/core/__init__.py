"""The engine and the layers around it: multi-head attention, its cost, LayerNorm and
the feed-forward layer, transformer blocks, parameter checks and process tuning."""
