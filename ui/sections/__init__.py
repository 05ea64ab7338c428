"""Streamlit sections of the longer pages, one module per group of sections, named for
what they draw; their sentences come from attention/teaching/narration."""
