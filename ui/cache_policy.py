"""How long cached results that grow with what each student types or picks stay cached.

Every st.cache_data/st.cache_resource with arguments has a max_entries (bounding memory
during a class) and this ttl, so a server's caches shrink again after the lecture;
.streamlit/config.toml's server.maxCacheDataSize bounds all st.cache_data bytes together."""

PER_USER_TTL = "1h"
