/*
 * stock_gzip: gzip streams made by the stock zlib, byte for byte what CouchDB stores.
 *
 * Why: CouchDB compresses attachments of compressible types with Erlang's zlib, which is the
 * system's stock zlib, and an attachment's digest (and so the revision id of the document that
 * holds it) is the md5 of that gzip stream. Node's own zlib is Chromium's fork, which finds
 * other matches and so other bytes. This addon links the stock zlib statically (libz.a) and
 * binding.gyp keeps its symbols local (--exclude-libs), so its calls bind to that copy and
 * never to the zlib symbols the node binary exports.
 *
 * The stream is deflateInit2(level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY): a gzip
 * wrapper with mtime 0 and the OS byte of the build, as couch_stream writes it. Input is
 * compressed with Z_NO_FLUSH, so the output does not depend on how the input is split.
 * push/finish run on the calling thread (small inputs); pushAsync/finishAsync on libuv's
 * threadpool, as node's own zlib streams do, so an upload's compression overlaps its reading
 * and storing. One call at a time per stream.
 */
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The part of zlib's C API used here, declared rather than included: node-gyp puts node's own
 * headers first on the include path, and node's zlib.h is Chromium's (it renames every symbol
 * to Cr_z_*), so `#include <zlib.h>` would bind these calls to node's zlib. z_stream's layout
 * and these entry points are zlib's stable ABI since 1.0.
 */
typedef struct {
  const uint8_t *next_in;
  unsigned int avail_in;
  unsigned long total_in;
  uint8_t *next_out;
  unsigned int avail_out;
  unsigned long total_out;
  const char *msg;
  void *state;
  void *zalloc;
  void *zfree;
  void *opaque;
  int data_type;
  unsigned long adler;
  unsigned long reserved;
} z_stream;

enum { Z_NO_FLUSH = 0, Z_FINISH = 4, Z_OK = 0, Z_STREAM_END = 1, Z_BUF_ERROR = -5,
       Z_DEFLATED = 8, Z_DEFAULT_STRATEGY = 0 };
/* deflateInit2_ checks only the version's first digit and the struct's size. */
#define ZLIB_ABI_VERSION "1.2.13"

extern int deflateInit2_(z_stream *strm, int level, int method, int windowBits, int memLevel,
                         int strategy, const char *version, int stream_size);
extern int deflate(z_stream *strm, int flush);
extern int deflateEnd(z_stream *strm);
extern const char *zlibVersion(void);

typedef struct {
  z_stream zs;
  int open;         /* deflateInit2 succeeded and deflateEnd not yet called */
  int busy;         /* a threadpool job is using the stream */
  uint8_t *out;     /* output of the last call, grown on demand */
  size_t outCap;
} Gzip;

#define THROW(env, msg)                                  \
  do {                                                   \
    napi_throw_error((env), "ERR_STOCK_GZIP", (msg));    \
    return NULL;                                         \
  } while (0)

#define CALL(env, expr)                                          \
  do {                                                           \
    if ((expr) != napi_ok) {                                     \
      bool pending_ = false;                                     \
      napi_is_exception_pending((env), &pending_);               \
      if (!pending_) napi_throw_error((env), "ERR_STOCK_GZIP", "N-API call failed"); \
      return NULL;                                               \
    }                                                            \
  } while (0)

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Gzip *g = data;
  if (g->open) deflateEnd(&g->zs);
  free(g->out);
  free(g);
}

/* open(level): a new gzip stream (level 1..9). */
static napi_value gzip_open(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t level = 0;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &level) != napi_ok || level < 1 || level > 9)
    THROW(env, "stock_gzip.open: level must be an integer from 1 to 9");
  Gzip *g = calloc(1, sizeof *g);
  if (g == NULL) THROW(env, "stock_gzip.open: out of memory");
  if (deflateInit2_(&g->zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_ABI_VERSION,
                    (int)sizeof g->zs) != Z_OK) {
    free(g);
    THROW(env, "stock_gzip.open: deflateInit2 failed");
  }
  g->open = 1;
  napi_value handle;
  CALL(env, napi_create_object(env, &handle));
  if (napi_wrap(env, handle, g, finalize, NULL, NULL) != napi_ok) {
    finalize(env, g, NULL);
    THROW(env, "stock_gzip.open: napi_wrap failed");
  }
  return handle;
}

/*
 * Runs deflate over the input with `flush`, leaving what came out in g->out[0..*produced).
 * Touches no JavaScript value, so it runs on the threadpool too. Returns NULL or an error.
 */
static const char *compress(Gzip *g, const uint8_t *in, size_t inLen, int flush, size_t *produced) {
  g->zs.next_in = in;
  g->zs.avail_in = (unsigned int)inLen;
  *produced = 0;
  const char *error = NULL;
  for (;;) {
    if (g->outCap - *produced < 16384) {
      size_t cap = g->outCap == 0 ? 65536 : g->outCap * 2;
      uint8_t *grown = realloc(g->out, cap);
      if (grown == NULL) {
        error = "stock_gzip: out of memory";
        break;
      }
      g->out = grown;
      g->outCap = cap;
    }
    g->zs.next_out = g->out + *produced;
    g->zs.avail_out = (unsigned int)(g->outCap - *produced);
    int rc = deflate(&g->zs, flush);
    *produced = g->outCap - g->zs.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      error = "stock_gzip: deflate failed";
      break;
    }
    /* Done with this input once deflate left room in the output: it holds nothing back. */
    if (flush == Z_NO_FLUSH && g->zs.avail_in == 0 && g->zs.avail_out != 0) break;
  }
  g->zs.next_in = NULL;
  if (flush == Z_FINISH || error != NULL) {
    deflateEnd(&g->zs);
    g->open = 0;
  }
  return error;
}

/* The call's arguments: the stream, and for a push the bytes (a Uint8Array). */
typedef struct {
  napi_value handle;
  Gzip *g;
  const uint8_t *in;
  size_t inLen;
  napi_value bytes;
} Args;

static napi_value read_args(napi_env env, napi_callback_info info, int withBytes, const char *what, Args *a) {
  size_t argc = 2;
  napi_value argv[2];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < (size_t)(withBytes ? 2 : 1)) THROW(env, what);
  void *data = NULL;
  if (napi_unwrap(env, argv[0], &data) != napi_ok || data == NULL) THROW(env, what);
  a->handle = argv[0];
  a->g = data;
  if (!a->g->open) THROW(env, "stock_gzip: the stream is already finished");
  if (a->g->busy) THROW(env, "stock_gzip: the stream is busy with another call");
  a->in = NULL;
  a->inLen = 0;
  if (withBytes) {
    bool typed = false;
    CALL(env, napi_is_typedarray(env, argv[1], &typed));
    if (!typed) THROW(env, what);
    napi_typedarray_type type;
    void *bytes;
    CALL(env, napi_get_typedarray_info(env, argv[1], &type, &a->inLen, &bytes, NULL, NULL));
    if (type != napi_uint8_array) THROW(env, what);
    a->in = bytes;
    a->bytes = argv[1];
  }
  return a->handle;
}

static napi_value run_sync(napi_env env, napi_callback_info info, int flush) {
  Args a;
  const char *usage = flush == Z_FINISH ? "stock_gzip.finish(stream)" : "stock_gzip.push(stream, Uint8Array)";
  if (read_args(env, info, flush != Z_FINISH, usage, &a) == NULL) return NULL;
  size_t produced = 0;
  const char *error = compress(a.g, a.in, a.inLen, flush, &produced);
  if (error != NULL) THROW(env, error);
  napi_value result;
  CALL(env, napi_create_buffer_copy(env, produced, a.g->out, NULL, &result));
  return result;
}

/* push(stream, bytes): compresses bytes; returns the gzip bytes ready so far (often none). */
static napi_value gzip_push(napi_env env, napi_callback_info info) { return run_sync(env, info, Z_NO_FLUSH); }

/* finish(stream): the rest of the gzip stream (its trailer included); the stream is then closed. */
static napi_value gzip_finish(napi_env env, napi_callback_info info) { return run_sync(env, info, Z_FINISH); }

/* A push or finish on the threadpool: the stream and the input are held until it completes. */
typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref handleRef;
  napi_ref bytesRef;
  Gzip *g;
  const uint8_t *in;
  size_t inLen;
  int flush;
  size_t produced;
  const char *error;
} Job;

static void job_execute(napi_env env, void *data) {
  (void)env;
  Job *job = data;
  job->error = compress(job->g, job->in, job->inLen, job->flush, &job->produced);
}

static void job_complete(napi_env env, napi_status status, void *data) {
  Job *job = data;
  job->g->busy = 0;
  napi_value result = NULL;
  if (status != napi_ok) job->error = "stock_gzip: the job was cancelled";
  if (job->error == NULL &&
      napi_create_buffer_copy(env, job->produced, job->g->out, NULL, &result) != napi_ok)
    job->error = "stock_gzip: could not make the result buffer";
  if (job->error == NULL) {
    napi_resolve_deferred(env, job->deferred, result);
  } else {
    napi_value message, error;
    napi_create_string_utf8(env, job->error, NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, job->deferred, error);
  }
  napi_delete_reference(env, job->handleRef);
  if (job->bytesRef != NULL) napi_delete_reference(env, job->bytesRef);
  napi_delete_async_work(env, job->work);
  free(job);
}

static napi_value run_async(napi_env env, napi_callback_info info, int flush) {
  Args a;
  const char *usage =
      flush == Z_FINISH ? "stock_gzip.finishAsync(stream)" : "stock_gzip.pushAsync(stream, Uint8Array)";
  if (read_args(env, info, flush != Z_FINISH, usage, &a) == NULL) return NULL;
  Job *job = calloc(1, sizeof *job);
  if (job == NULL) THROW(env, "stock_gzip: out of memory");
  job->g = a.g;
  job->in = a.in;
  job->inLen = a.inLen;
  job->flush = flush;
  napi_value promise, name;
  CALL(env, napi_create_promise(env, &job->deferred, &promise));
  CALL(env, napi_create_reference(env, a.handle, 1, &job->handleRef));
  if (flush != Z_FINISH) CALL(env, napi_create_reference(env, a.bytes, 1, &job->bytesRef));
  CALL(env, napi_create_string_utf8(env, "stock_gzip", NAPI_AUTO_LENGTH, &name));
  CALL(env, napi_create_async_work(env, NULL, name, job_execute, job_complete, job, &job->work));
  CALL(env, napi_queue_async_work(env, job->work));
  a.g->busy = 1;
  return promise;
}

/* pushAsync(stream, bytes): push on the threadpool; a Promise of the gzip bytes ready so far. */
static napi_value gzip_push_async(napi_env env, napi_callback_info info) { return run_async(env, info, Z_NO_FLUSH); }

/* finishAsync(stream): finish on the threadpool; a Promise of the rest of the stream. */
static napi_value gzip_finish_async(napi_env env, napi_callback_info info) { return run_async(env, info, Z_FINISH); }

/* zlibVersion(): the linked zlib's version, e.g. "1.2.13". */
static napi_value gzip_version(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  CALL(env, napi_create_string_utf8(env, zlibVersion(), NAPI_AUTO_LENGTH, &result));
  return result;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"open", NULL, gzip_open, NULL, NULL, NULL, napi_enumerable, NULL},
      {"push", NULL, gzip_push, NULL, NULL, NULL, napi_enumerable, NULL},
      {"finish", NULL, gzip_finish, NULL, NULL, NULL, napi_enumerable, NULL},
      {"pushAsync", NULL, gzip_push_async, NULL, NULL, NULL, napi_enumerable, NULL},
      {"finishAsync", NULL, gzip_finish_async, NULL, NULL, NULL, napi_enumerable, NULL},
      {"zlibVersion", NULL, gzip_version, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  CALL(env, napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
  return exports;
}

NAPI_MODULE_INIT() { return Init(env, exports); }
