"""Where heads move the points: the score space (nearer = higher score), PCA planes,
Procrustes alignment, rank agreement, each head's space, and pooling long maps."""
