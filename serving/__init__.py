"""Serving a class: N Streamlit processes behind nginx with sticky sessions
(`make serve WORKERS=N`, `python -m serving`)."""
