"""What attention runs on: toy token points, the pretrained MiniLM in NumPy and a
hand-built English → German translation model."""
