"""The experiments of the "Why several heads?" page, one module each, Streamlit-free:
cost (§1), two_targets (§2), rank_limit (§3), training (§4), slicing (§5)."""
