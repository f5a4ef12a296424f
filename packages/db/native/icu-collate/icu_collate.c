/*
 * icu_collate: ICU root-collation sort keys for CouchDB-compatible view keys.
 *
 * Why: CouchDB orders view-key strings with an ICU collator opened as ucol_open("") with every
 * attribute at its default (tertiary strength, normalization OFF). V8's Intl.Collator forces
 * normalization ON and cannot give sort keys, and no npm package produces ICU sort keys. The
 * node binary already contains ICU and exports its C API with a version suffix
 * (ucol_open_78, ...), so this addon finds those functions with dlsym at load time and needs
 * no ICU headers or libraries of its own.
 *
 * The ICU types and enum values used are declared below (stable C ABI since ICU 2.x); the init
 * code reads the attributes back and refuses to load if they are not CouchDB's, so a wrong
 * constant or an unexpected ICU fails loudly instead of ordering keys differently.
 *
 * One collator per Node environment (main thread and each worker): a UCollator must not be used
 * by two threads at once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint16_t UChar;
typedef int32_t UErrorCode; /* > 0 is a failure, <= 0 success or warning */
typedef struct UCollator UCollator;
typedef uint8_t UVersionInfo[4];

/* UColAttribute */
enum { ATTR_FRENCH = 0, ATTR_ALTERNATE = 1, ATTR_CASE_FIRST = 2, ATTR_CASE_LEVEL = 3,
       ATTR_NORMALIZATION = 4, ATTR_STRENGTH = 5, ATTR_NUMERIC = 7 };
/* UColAttributeValue */
enum { VAL_TERTIARY = 2, VAL_OFF = 16, VAL_ON = 17, VAL_NON_IGNORABLE = 21 };

typedef UCollator *(*ucol_open_fn)(const char *, UErrorCode *);
typedef void (*ucol_close_fn)(UCollator *);
typedef void (*ucol_setAttribute_fn)(UCollator *, int, int, UErrorCode *);
typedef int (*ucol_getAttribute_fn)(const UCollator *, int, UErrorCode *);
typedef int32_t (*ucol_getSortKey_fn)(const UCollator *, const UChar *, int32_t, uint8_t *, int32_t);
typedef int (*ucol_strcoll_fn)(const UCollator *, const UChar *, int32_t, const UChar *, int32_t);
typedef void (*ucol_getVersion_fn)(const UCollator *, UVersionInfo);
typedef void (*u_getVersion_fn)(UVersionInfo);
typedef void (*u_versionToString_fn)(const UVersionInfo, char *);
typedef const char *(*u_errorName_fn)(UErrorCode);
typedef void (*u_charAge_fn)(int32_t, UVersionInfo);

static struct {
  int loaded;
  ucol_open_fn open;
  ucol_close_fn close;
  ucol_setAttribute_fn setAttribute;
  ucol_getAttribute_fn getAttribute;
  ucol_getSortKey_fn getSortKey;
  ucol_strcoll_fn strcoll;
  ucol_getVersion_fn getVersion;
  ucol_getVersion_fn getUCAVersion;
  u_getVersion_fn icuVersion;
  u_versionToString_fn versionToString;
  u_errorName_fn errorName;
  u_charAge_fn charAge;
} icu;

typedef struct {
  UCollator *coll;
  uint8_t *key; /* scratch buffer for sort keys, grown on demand */
  int32_t keyCap;
  UChar *text; /* scratch buffer for UTF-16 input, grown on demand */
  size_t textCap;
} Instance;

#define THROW(env, msg)                          \
  do {                                           \
    napi_throw_error((env), "ERR_ICU_COLLATE", (msg)); \
    return NULL;                                 \
  } while (0)

#define CALL(env, expr)                                                   \
  do {                                                                    \
    if ((expr) != napi_ok) {                                              \
      const napi_extended_error_info *info_ = NULL;                       \
      napi_get_last_error_info((env), &info_);                            \
      bool pending_ = false;                                              \
      napi_is_exception_pending((env), &pending_);                        \
      if (!pending_)                                                      \
        napi_throw_error((env), "ERR_ICU_COLLATE",                        \
                         info_ && info_->error_message ? info_->error_message \
                                                       : "N-API call failed"); \
      return NULL;                                                        \
    }                                                                     \
  } while (0)

/* Looks up name + suffix ("ucol_open" + "_78"); falls back to the plain name for an ICU built
 * with renaming disabled. */
static void *find(const char *name, const char *suffix) {
  char full[96];
  snprintf(full, sizeof full, "%s%s", name, suffix);
  void *p = dlsym(RTLD_DEFAULT, full);
  if (p == NULL) p = dlsym(RTLD_DEFAULT, name);
  return p;
}

/* Returns NULL on success, else a static description of what is missing. */
static const char *load_icu(const char *suffix, char *err, size_t errLen) {
  if (icu.loaded) return NULL;
#define LOAD(field, name)                                                                  \
  icu.field = find(name, suffix);                                                          \
  if (icu.field == NULL) {                                                                 \
    snprintf(err, errLen,                                                                  \
             "icu_collate: ICU function %s%s not found in the running node binary or its " \
             "libraries (ICU suffix from process.versions.icu)", name, suffix);            \
    return err;                                                                            \
  }
  LOAD(open, "ucol_open")
  LOAD(close, "ucol_close")
  LOAD(setAttribute, "ucol_setAttribute")
  LOAD(getAttribute, "ucol_getAttribute")
  LOAD(getSortKey, "ucol_getSortKey")
  LOAD(strcoll, "ucol_strcoll")
  LOAD(getVersion, "ucol_getVersion")
  LOAD(getUCAVersion, "ucol_getUCAVersion")
  LOAD(icuVersion, "u_getVersion")
  LOAD(versionToString, "u_versionToString")
  LOAD(errorName, "u_errorName")
  LOAD(charAge, "u_charAge")
#undef LOAD
  icu.loaded = 1;
  return NULL;
}

/* Reads the string argument as UTF-16 into inst->text; lone surrogates become U+FFFD so the
 * order is that of the string's UTF-8 form (what CouchDB and SQLite ever see). */
static napi_status read_utf16(napi_env env, Instance *inst, napi_value value, size_t *len) {
  napi_status s = napi_get_value_string_utf16(env, value, NULL, 0, len);
  if (s != napi_ok) return s;
  if (*len + 1 > inst->textCap) {
    size_t cap = (*len + 1) * 2;
    UChar *grown = realloc(inst->text, cap * sizeof(UChar));
    if (grown == NULL) return napi_generic_failure;
    inst->text = grown;
    inst->textCap = cap;
  }
  s = napi_get_value_string_utf16(env, value, (char16_t *)inst->text, inst->textCap, len);
  if (s != napi_ok) return s;
  UChar *t = inst->text;
  size_t n = *len;
  for (size_t i = 0; i < n; i++) {
    UChar c = t[i];
    if (c < 0xD800 || c > 0xDFFF) continue;
    if (c <= 0xDBFF && i + 1 < n && t[i + 1] >= 0xDC00 && t[i + 1] <= 0xDFFF) {
      i++;
      continue;
    }
    t[i] = 0xFFFD;
  }
  return napi_ok;
}

/* Sort key of inst->text[0..len) into inst->key; returns its length WITHOUT ICU's trailing 0x00
 * (ICU sort keys contain no other 0x00 byte), or -1 when out of memory. */
static int32_t sort_key(Instance *inst, size_t len) {
  int32_t n = icu.getSortKey(inst->coll, inst->text, (int32_t)len, inst->key, inst->keyCap);
  if (n > inst->keyCap) {
    int32_t cap = n + 64;
    uint8_t *grown = realloc(inst->key, (size_t)cap);
    if (grown == NULL) return -1;
    inst->key = grown;
    inst->keyCap = cap;
    n = icu.getSortKey(inst->coll, inst->text, (int32_t)len, inst->key, inst->keyCap);
  }
  return n > 0 ? n - 1 : 0;
}

static Instance *instance(napi_env env) {
  Instance *inst = NULL;
  napi_get_instance_data(env, (void **)&inst);
  return inst;
}

static napi_value string_arg(napi_env env, napi_value arg, const char *what) {
  napi_valuetype t;
  if (napi_typeof(env, arg, &t) != napi_ok || t != napi_string) {
    char msg[96];
    snprintf(msg, sizeof msg, "icu_collate: %s must be a string", what);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
    return NULL;
  }
  return arg;
}

/* sortKey(s: string): Buffer */
static napi_value SortKey(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || string_arg(env, argv[0], "the argument") == NULL) return NULL;
  Instance *inst = instance(env);
  size_t len;
  CALL(env, read_utf16(env, inst, argv[0], &len));
  int32_t n = sort_key(inst, len);
  if (n < 0) THROW(env, "icu_collate: out of memory");
  napi_value out;
  CALL(env, napi_create_buffer_copy(env, (size_t)n, inst->key, NULL, &out));
  return out;
}

/* sortKeyInto(s: string, target: Uint8Array, offset: number): number
 * Writes the sort key at target[offset..] and returns its length; when it does not fit, writes
 * nothing and returns -(length). Lets the key encoder fill one buffer without a Buffer per
 * string. */
static napi_value SortKeyInto(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3 || string_arg(env, argv[0], "the first argument") == NULL) return NULL;
  bool isTyped = false;
  CALL(env, napi_is_typedarray(env, argv[1], &isTyped));
  if (!isTyped) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "icu_collate: target must be a Uint8Array");
    return NULL;
  }
  napi_typedarray_type type;
  size_t length;
  void *data;
  CALL(env, napi_get_typedarray_info(env, argv[1], &type, &length, &data, NULL, NULL));
  if (type != napi_uint8_array) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "icu_collate: target must be a Uint8Array");
    return NULL;
  }
  int64_t offset;
  CALL(env, napi_get_value_int64(env, argv[2], &offset));
  if (offset < 0 || (uint64_t)offset > length) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "icu_collate: offset outside target");
    return NULL;
  }
  Instance *inst = instance(env);
  size_t len;
  CALL(env, read_utf16(env, inst, argv[0], &len));
  int32_t n = sort_key(inst, len);
  if (n < 0) THROW(env, "icu_collate: out of memory");
  int32_t result = n;
  if ((size_t)n <= length - (size_t)offset)
    memcpy((uint8_t *)data + offset, inst->key, (size_t)n);
  else
    result = -n;
  napi_value out;
  CALL(env, napi_create_int32(env, result, &out));
  return out;
}

/* compare(a: string, b: string): -1 | 0 | 1 */
static napi_value Compare(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2 || string_arg(env, argv[0], "a") == NULL || string_arg(env, argv[1], "b") == NULL)
    return NULL;
  Instance *inst = instance(env);
  size_t lenA, lenB;
  CALL(env, read_utf16(env, inst, argv[0], &lenA));
  /* read_utf16 reuses one scratch buffer, so keep a's text aside. */
  UChar small[256];
  UChar *a = lenA <= 256 ? small : malloc(lenA * sizeof(UChar));
  if (a == NULL) THROW(env, "icu_collate: out of memory");
  memcpy(a, inst->text, lenA * sizeof(UChar));
  if (read_utf16(env, inst, argv[1], &lenB) != napi_ok) {
    if (a != small) free(a);
    CALL(env, napi_generic_failure);
  }
  int r = icu.strcoll(inst->coll, a, (int32_t)lenA, inst->text, (int32_t)lenB);
  if (a != small) free(a);
  napi_value out;
  CALL(env, napi_create_int32(env, r < 0 ? -1 : r > 0 ? 1 : 0, &out));
  return out;
}

static napi_value version_string(napi_env env, const UVersionInfo v) {
  char text[32];
  icu.versionToString(v, text);
  napi_value out;
  CALL(env, napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &out));
  return out;
}

/* version(): string, the collator version (ucol_getVersion): changes when sort keys may. */
static napi_value Version(napi_env env, napi_callback_info info) {
  (void)info;
  UVersionInfo v;
  icu.getVersion(instance(env)->coll, v);
  return version_string(env, v);
}

/* icuVersion(): string, the ICU library version (u_getVersion), e.g. "78.2". */
static napi_value IcuVersion(napi_env env, napi_callback_info info) {
  (void)info;
  UVersionInfo v;
  icu.icuVersion(v);
  return version_string(env, v);
}

/* ucaVersion(): string, the Unicode Collation Algorithm version of the root table. */
static napi_value UcaVersion(napi_env env, napi_callback_info info) {
  (void)info;
  UVersionInfo v;
  icu.getUCAVersion(instance(env)->coll, v);
  return version_string(env, v);
}

/* charAge(codePoint: number): string, the Unicode version that assigned the code point ("0.0"
 * if unassigned in this ICU). Tells which keys may order differently under another ICU. */
static napi_value CharAge(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t cp = -1;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &cp) != napi_ok || cp < 0 || cp > 0x10FFFF) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "icu_collate: charAge takes a code point");
    return NULL;
  }
  UVersionInfo v;
  icu.charAge(cp, v);
  return version_string(env, v);
}

static void finalize_instance(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Instance *inst = data;
  if (inst->coll) icu.close(inst->coll);
  free(inst->key);
  free(inst->text);
  free(inst);
}

/* The ICU major version of this node, read from process.versions.icu ("78.2" -> "_78"). */
static napi_value icu_suffix(napi_env env, char *suffix, size_t cap) {
  napi_value global, process, versions, icuValue;
  CALL(env, napi_get_global(env, &global));
  CALL(env, napi_get_named_property(env, global, "process", &process));
  CALL(env, napi_get_named_property(env, process, "versions", &versions));
  CALL(env, napi_get_named_property(env, versions, "icu", &icuValue));
  napi_valuetype t;
  CALL(env, napi_typeof(env, icuValue, &t));
  if (t != napi_string)
    THROW(env, "icu_collate: this node has no ICU (process.versions.icu is undefined); "
               "CouchDB collation needs a node built with ICU");
  char text[32];
  size_t len;
  CALL(env, napi_get_value_string_utf8(env, icuValue, text, sizeof text, &len));
  char *dot = strchr(text, '.');
  if (dot) *dot = '\0';
  snprintf(suffix, cap, "_%s", text);
  return icuValue;
}

static napi_value Init(napi_env env, napi_value exports) {
  char suffix[40];
  if (icu_suffix(env, suffix, sizeof suffix) == NULL) return NULL;
  char err[256];
  if (load_icu(suffix, err, sizeof err) != NULL) THROW(env, err);

  UErrorCode status = 0;
  UCollator *coll = icu.open("", &status); /* "" = root, as CouchDB's ucol_open("") */
  if (coll == NULL || status > 0) {
    snprintf(err, sizeof err, "icu_collate: ucol_open(\"\") failed: %s", icu.errorName(status));
    if (coll) icu.close(coll);
    THROW(env, err);
  }
  /* CouchDB changes no attribute; set the two that matter explicitly anyway. */
  icu.setAttribute(coll, ATTR_NORMALIZATION, VAL_OFF, &status);
  icu.setAttribute(coll, ATTR_STRENGTH, VAL_TERTIARY, &status);
  static const struct { int attr; int want; const char *name; } expect[] = {
    {ATTR_FRENCH, VAL_OFF, "french"},           {ATTR_ALTERNATE, VAL_NON_IGNORABLE, "alternate"},
    {ATTR_CASE_FIRST, VAL_OFF, "caseFirst"},    {ATTR_CASE_LEVEL, VAL_OFF, "caseLevel"},
    {ATTR_NORMALIZATION, VAL_OFF, "normalization"}, {ATTR_STRENGTH, VAL_TERTIARY, "strength"},
    {ATTR_NUMERIC, VAL_OFF, "numeric"},
  };
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
    int got = icu.getAttribute(coll, expect[i].attr, &status);
    if (status > 0 || got != expect[i].want) {
      snprintf(err, sizeof err,
               "icu_collate: root collator attribute %s is %d (status %s), expected %d; "
               "refusing to collate differently from CouchDB",
               expect[i].name, got, icu.errorName(status), expect[i].want);
      icu.close(coll);
      THROW(env, err);
    }
  }

  Instance *inst = calloc(1, sizeof *inst);
  if (inst == NULL) {
    icu.close(coll);
    THROW(env, "icu_collate: out of memory");
  }
  inst->coll = coll;
  inst->keyCap = 256;
  inst->key = malloc((size_t)inst->keyCap);
  inst->textCap = 256;
  inst->text = malloc(inst->textCap * sizeof(UChar));
  if (inst->key == NULL || inst->text == NULL) {
    finalize_instance(env, inst, NULL);
    THROW(env, "icu_collate: out of memory");
  }
  CALL(env, napi_set_instance_data(env, inst, finalize_instance, NULL));

  napi_property_descriptor props[] = {
    {"sortKey", NULL, SortKey, NULL, NULL, NULL, napi_enumerable, NULL},
    {"sortKeyInto", NULL, SortKeyInto, NULL, NULL, NULL, napi_enumerable, NULL},
    {"compare", NULL, Compare, NULL, NULL, NULL, napi_enumerable, NULL},
    {"version", NULL, Version, NULL, NULL, NULL, napi_enumerable, NULL},
    {"icuVersion", NULL, IcuVersion, NULL, NULL, NULL, napi_enumerable, NULL},
    {"ucaVersion", NULL, UcaVersion, NULL, NULL, NULL, napi_enumerable, NULL},
    {"charAge", NULL, CharAge, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  CALL(env, napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
  return exports;
}

NAPI_MODULE_INIT() { return Init(env, exports); }
