"""User text inside Streamlit markdown, for pages and ui helpers: the escaping lives in
attention/teaching/markdown.py, where the narration functions use it too."""

from attention.teaching.markdown import literal

__all__ = ["literal"]
