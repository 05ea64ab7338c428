"""The security headers on every page of the site: one table that serving/nginx.py renders
into the nginx site and that deploy/k8s/ingress.yaml's custom-headers ConfigMap must
repeat (tests/classroom/test_deploy.py compares them)."""

from __future__ import annotations

# Index.html's one inline script (`window.prerenderReady = false`), allowed by its hash;
# the hash changes with Streamlit's version (tests/classroom/test_deploy.py checks the
# installed file).
STREAMLIT_INLINE_SCRIPT = "sha256-THxz9J9+wf7rhwR2YkXJoSZ13UCmYyC+3lNDv2+8ugA="
# As strict as Streamlit 1.67 and its Plotly work under, found in Chromium on every page
# (tests/browser/test_browser_serving.py): 'wasm-unsafe-eval' for Streamlit's protobuf decoder,
# 'unsafe-eval' for Plotly's WebGL charts (regl builds its draw calls with new Function),
# blob: for st.components.v2, whose inline JS Streamlit imports from a blob: URL (the
# playground and the reduced-motion reporter; only the page's own scripts can make one),
# inline styles (emotion, Plotly, KaTeX), data: images (Plotly's heatmaps) and fonts,
# and Google's icon server for the Material favicon. Nothing is framed or posted.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        f"script-src 'self' blob: 'wasm-unsafe-eval' 'unsafe-eval' '{STREAMLIT_INLINE_SCRIPT}'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: https://fonts.gstatic.com",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'self'",
    ]
)
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    # Only the origin, even to this site: a link's sentence never leaves in a Referer,
    # and the page's script and style requests do not repeat a 45 KB address.
    "Referrer-Policy": "strict-origin",
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
}
