# Builds two Node-API addons of plain C:
# - icu_collate.node: ICU itself is not linked: the addon finds the ICU C API already inside the
#   running node binary with dlsym (see icu_collate.c).
# - stock_gzip.node: the stock zlib linked statically (libz.a: Debian's zlib1g-dev), its symbols
#   kept local (--exclude-libs) so they never bind to the zlib node exports (see stock_gzip.c).
{
  "targets": [
    {
      "target_name": "icu_collate",
      "sources": ["icu_collate.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=c11", "-O2", "-Wall", "-Wextra"],
      "libraries": ["-ldl"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11", "-O2"] }
    },
    {
      "target_name": "stock_gzip",
      "sources": ["stock_gzip.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=c11", "-O2", "-Wall", "-Wextra"],
      "conditions": [
        ["OS=='mac'", { "libraries": ["-lz"] }],
        ["OS!='mac'", { "libraries": ["-Wl,--exclude-libs,ALL", "-l:libz.a"] }]
      ],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11", "-O2"] }
    }
  ]
}
