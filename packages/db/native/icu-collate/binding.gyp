# Builds icu_collate.node: plain C against Node-API only. ICU itself is not linked: the addon
# finds the ICU C API already inside the running node binary with dlsym (see icu_collate.c).
{
  "targets": [
    {
      "target_name": "icu_collate",
      "sources": ["icu_collate.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=c11", "-O2", "-Wall", "-Wextra"],
      "libraries": ["-ldl"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11", "-O2"] }
    }
  ]
}
