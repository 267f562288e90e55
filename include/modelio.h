/* SPDX-License-Identifier: MIT */
/**
 * modelio.h — the public C API of libmodelio.
 *
 * libmodelio reads, writes and transcodes ML model files: GGUF (llama.cpp/ggml)
 * and safetensors (Hugging Face). This header is the whole API; everything
 * exported starts with mio_ and is marked MIO_API.
 *
 * Conventions (see README.md and docs/GGUF.md):
 *  - Every fallible call returns mio_status and outputs go through pointer
 *    arguments; on failure mio_last_error() holds a thread-local message naming
 *    the key/tensor and the numbers involved.
 *  - Outputs on failure: a call that fails writes none of its outputs. Whatever an
 *    output pointer points to keeps every byte it had before the call, for each
 *    kind of output: handles (*out of mio_gguf_open, mio_st_open, mio_writer_new,
 *    mio_kv_edit_parse; the buffer and length of mio_st_save_buffer), values
 *    (integers, doubles, the structs mio_gguf_value, mio_gguf_tensor and
 *    mio_st_tensor, counts such as *n_parts, *n_shards and *written), views
 *    (mio_str) and destination buffers (dst of the codecs and of mio_st_slice).
 *    On MIO_OK every output that is not NULL is written. So a handle variable
 *    that you close unconditionally must start as NULL. Not outputs: the plan and
 *    progress callbacks, and the descriptor or callback an _fd or _cb call writes
 *    to; those may have been called or written to before a failure.
 *  - NULL pointer arguments never crash. A NULL where a pointer is needed is
 *    MIO_ERR_INVALID_ARG with a message naming the parameter ("key is NULL",
 *    "writer w is NULL"), unless the declaration says that it may be NULL.
 *    Calls that return a count, size or view rather than a status return the
 *    sentinel stated at their declaration for a NULL handle or name (-1, 0,
 *    {NULL, 0}); close/free calls and the madvise hints do nothing on NULL.
 *  - Views (mio_str, tensor data pointers) point into the file bytes and live as
 *    long as the handle they came from (or the mapping taken with
 *    mio_gguf_take_mapping). They are NOT NUL-terminated.
 *  - A parsed mio_gguf_file is read-only and may be shared by many threads.
 *    mio_gguf_close, mio_gguf_take_mapping and every mio_writer call need
 *    external serialization.
 *  - The library never prints, aborts or exits.
 *
 * Layout of this header: one section per module, in the order a reader meets
 * them: core and errors, tensor types, GGUF reading, GGUF writing (with
 * metadata edits and splitting), safetensors, conversion (GGUF <-> safetensors
 * and Hugging Face checkpoints), block codecs and dot products, quantizing,
 * LoRA adapters, PTQTP; then the deprecated names. Inspection (hashes,
 * statistics, diff, descriptions) has its own header, modelio_inspect.h.
 *
 * Naming rules (docs/ABI.md "Naming"):
 *  - Prefix: mio_ then the module or handle a call belongs to: mio_gguf_ (a
 *    mio_gguf_file, or a GGUF file named by path, read, edited or split),
 *    mio_writer_ (a mio_writer), mio_kv_ (mio_kv_edit), mio_st_ (safetensors),
 *    mio_type_ (ggml type codes), mio_preset_ and mio_quantize (quantizing),
 *    mio_hf_, mio_lora_, mio_ptqtp_. Calls of no module are named by what they
 *    do: the core (mio_version, mio_status_name, mio_last_error, mio_free,
 *    mio_cancel_writes), the scalar casts (mio_fp16_to_f32, ...) and the
 *    codecs (mio_encode_f32, mio_decode_f32, mio_vec_dot, mio_matvec,
 *    mio_matmul, mio_cpu_isa). A format named inside a name is spelled gguf or
 *    st (mio_gguf_to_st, mio_st_to_gguf).
 *  - Constructors name their destructor: each call that hands out a handle or
 *    a malloc()ed block says "free with ..." (mio_gguf_close, mio_st_close,
 *    mio_writer_free, mio_free).
 *  - Output variants: a call that writes a file takes the destination path
 *    and writes it atomically (below, mio_cancel_writes); the same call
 *    suffixed _fd writes to an open descriptor instead (no temp file, no
 *    rename; on failure what was written stays written) and takes the
 *    descriptor where the path was; _cb writes through a mio_write_fn; _buffer
 *    returns a malloc()ed buffer. The GGUF writer's path call is
 *    mio_writer_write_file (mio_writer_begin_file for streaming).
 *  - _sized: a call suffixed _sized is the call without it plus one argument,
 *    the caller's sizeof of one struct the call takes (the struct type of the
 *    caller's header), placed right after that struct's pointer, or right
 *    after the element count for an array (pointer, count, size). It lets the
 *    struct gain fields at its end (docs/ABI.md): the library never touches a
 *    byte past the size given. For an output struct the first min(size, the
 *    library's size) bytes are filled and the rest zeroed; for an input array
 *    the size is the element stride, and bytes of an element past the fields
 *    the library knows must be zero; for mio_X_default_params_sized (and
 *    mio_ptqtp_default_options_sized) the struct is filled with the defaults,
 *    the rest zeroed and its leading size field set to size. _sized is always
 *    the last suffix (mio_gguf_copy_edit_fd_sized). The unsized call uses the
 *    0.1 size in every 0.x version.
 *  - Renamed calls keep their old names until 1.0 as deprecated aliases (the
 *    "Deprecated names" section at the end): same symbols, same behaviour.
 */
#ifndef MODELIO_H
#define MODELIO_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#  if defined(MIO_BUILDING_LIBRARY)
#    define MIO_API __declspec(dllexport)
#  else
#    define MIO_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define MIO_API __attribute__((visibility("default")))
#else
#  define MIO_API
#endif

/** Marks a name kept for compatibility (the "Deprecated names" section): GCC
 * and Clang warn at each use with the replacement's name. Compiles away on
 * other compilers, and when a program defines MIO_DEPRECATED itself (define
 * it empty to silence the warnings). */
#ifndef MIO_DEPRECATED
#  if defined(__GNUC__) && (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 5))
#    define MIO_DEPRECATED(msg) __attribute__((deprecated(msg)))
#  else
#    define MIO_DEPRECATED(msg)
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/** Core: version, status codes and errors, memory, atomic writes, callbacks   */
/* ------------------------------------------------------------------------- */
#define MIO_VERSION_MAJOR 0
#define MIO_VERSION_MINOR 1
#define MIO_VERSION_PATCH 0
/** The one place the version is written: CMake reads the three lines above. */
#define MIO_VERSION_NUMBER (MIO_VERSION_MAJOR * 10000 + MIO_VERSION_MINOR * 100 + MIO_VERSION_PATCH)

/** "0.1.0": the version of the library actually loaded. */
MIO_API const char *mio_version(void);
/** The same as a number, MAJOR * 10000 + MINOR * 100 + PATCH (MIO_VERSION_NUMBER
 * of the library's build): compare it with the header a program was compiled
 * against. */
MIO_API int mio_version_number(void);

/** Status codes. The numbers are stable: never renumbered, only appended. */
typedef enum mio_status {
    MIO_OK = 0,
    MIO_ERR_IO = 1,                  /**< open/read/write/mmap/rename failed (errno text in message) */
    MIO_ERR_NOMEM = 2,               /**< allocation failed */
    MIO_ERR_INVALID_ARG = 3,         /**< NULL handle, bad flag, bad key/tensor index, bad name from the caller */
    MIO_ERR_BAD_MAGIC = 4,           /**< not a GGUF file (first four bytes) */
    MIO_ERR_UNSUPPORTED_VERSION = 5, /**< GGUF v1, or a version newer than 3 */
    MIO_ERR_TRUNCATED = 6,           /**< file ends before the structure it announces */
    MIO_ERR_INVALID_TENSOR_INFO = 7, /**< bad n_dims, negative dim, row not a whole number of blocks, long name */
    MIO_ERR_INVALID_ALIGNMENT = 8,   /**< general.alignment not a u32 power of two in 1..2^20 */
    MIO_ERR_DUPLICATE_KEY = 9,
    MIO_ERR_DUPLICATE_TENSOR = 10,
    MIO_ERR_UNSUPPORTED_TYPE = 11,   /**< unknown ggml type code or GGUF value type */
    MIO_ERR_OUT_OF_RANGE = 12,       /**< value does not fit the requested width (u64 >= 2^63 as i64, ...),
                                        or an array element / slice index past the end */
    MIO_ERR_NOT_FOUND = 13,          /**< no such key / tensor / file */
    MIO_ERR_TYPE_MISMATCH = 14,      /**< key holds another type than the getter reads */
    MIO_ERR_OVERFLOW = 15,           /**< size arithmetic overflows (dims product, byte counts) */
    MIO_ERR_INVALID_KV = 16,         /**< empty key, bool byte not 0/1, arrays nested too deep */
    MIO_ERR_LIMIT = 17,              /**< a string or array longer than the 2^30 cap */
    MIO_ERR_INVALID_OFFSET = 18,     /**< tensor offset differs from the running padded sum */
    MIO_ERR_SPLIT = 19,              /**< split GGUF: wrong part, split.count/split.no mismatch, missing part */
    MIO_ERR_SIZE_MISMATCH = 20,      /**< data length differs from type x dims */
    MIO_ERR_TOO_MANY_TENSORS = 21,   /**< streaming writer: more tensor data than declared tensors */
    MIO_ERR_INCOMPLETE = 22,         /**< streaming writer: finished before every tensor was written */
    MIO_ERR_STATE = 23,              /**< call not valid in the object's current state */
    MIO_ERR_BYTE_ORDER = 24,         /**< big-endian (byte-swapped) GGUF: not supported */
    /** safetensors (upstream's error classes, finer where noted) */
    MIO_ERR_HEADER_TOO_SMALL = 25,   /**< fewer than 8 bytes */
    MIO_ERR_HEADER_TOO_LARGE = 26,   /**< header length above 100,000,000 */
    MIO_ERR_INVALID_HEADER_LENGTH = 27, /**< 8 + header length runs past the end */
    MIO_ERR_INVALID_UTF8 = 28,       /**< header is not valid UTF-8 */
    MIO_ERR_INVALID_JSON = 29,       /**< JSON syntax or schema error in the header */
    MIO_ERR_MISALIGNED_SLICE = 30,   /**< sub-byte tensor whose bit count is not a multiple of 8 */
    MIO_ERR_INCOMPLETE_BUFFER = 31,  /**< data buffer longer or shorter than the tensors describe */
    MIO_ERR_INVALID_METADATA = 32,   /**< __metadata__ with a duplicate key, a bad index file */
    /** codecs */
    MIO_ERR_ENCODER_UNAVAILABLE = 33, /**< no encoder for this type (needs an importance matrix, or none exists) */
    MIO_ERR_DECODER_UNAVAILABLE = 34, /**< no float view of this type */
    MIO_ERR_NON_FINITE = 35,          /**< NaN or infinity in block-encoder input */
    MIO_ERR_CANCELLED = 36,           /**< the write was cancelled by mio_cancel_writes (its temp file is removed) */
    /** model conversion */
    MIO_ERR_UNSUPPORTED = 37,         /**< an architecture, tokenizer or model feature that is not converted (the message names it),
                                         or a remote file in a library built without HTTP support */
    /** remote files and the Hugging Face Hub (docs/HUB.md) */
    MIO_ERR_NETWORK = 38,             /**< no response, a dropped or stalled connection, an unexpected HTTP status or reply */
    MIO_ERR_AUTH = 39,                /**< HTTP 401/403: a private or gated repo without a token, or a refused token */
    MIO_ERR_CHECKSUM = 40             /**< downloaded bytes whose sha256 differs from the file's etag */
} mio_status;

/** Stable upper-case name of a status ("MIO_ERR_TRUNCATED"); "MIO_ERR_UNKNOWN" for others. */
MIO_API const char *mio_status_name(mio_status s);

/** Message of the last failure on the calling thread ("" if none yet). The
 * pointer stays valid until the next failing libmodelio call on this thread. */
MIO_API const char *mio_last_error(void);

/** The warning of the last call on the calling thread that reports warnings,
 * "" if it had none: a call that goes on despite something it could not use
 * (mio_hf_convert: a model card whose front matter is not YAML it reads). Such
 * a call clears it when it starts. */
MIO_API const char *mio_last_warning(void);

/** Writes to a path (mio_writer_write_file/begin_file, mio_st_save_file,
 * mio_st_save_sharded) are atomic: the bytes go to a temporary file next to the
 * destination ("<name>.tmp-XXXXXX", or ".mio-XXXXXX" when the name is too long
 * for that), which is fsynced and renamed into place only when everything is
 * written; on failure it is removed and the old file is untouched. Only a
 * missing path or a regular file is replaced: a path that names a device, a
 * FIFO, a socket or a directory (also through a symlink, like /dev/stdout) is
 * refused with MIO_ERR_IO — to stream into one, open it yourself and use the
 * _fd or _cb calls. A symlink to a regular file is followed (its target is
 * replaced, the link stays). The replacement keeps the old file's permission
 * bits; a new file gets 0666 minus the umask.
 *
 * mio_cancel_writes cancels every such write in progress in the process: it
 * removes their temporary files at once and those writes then fail with
 * MIO_ERR_CANCELLED (the destinations are untouched). It is async-signal-safe
 * (it only calls unlink and touches lock-free state), so a SIGINT/SIGTERM
 * handler can call it and then _exit; it returns how many temporary files it
 * removed. Up to 64 writes at once are tracked; a write started beyond that
 * cannot be cancelled this way (it still cleans up after itself on failure). */
MIO_API int mio_cancel_writes(void);

/** A byte view: NOT NUL-terminated, may contain any bytes (GGUF strings are not
 * guaranteed to be UTF-8). */
typedef struct mio_str {
    const char *ptr;
    size_t len;
} mio_str;

/** Free memory the library allocated for the caller: every output whose
 * declaration says "free with mio_free" (mio_kv_edit_parse's edit,
 * mio_st_save_buffer's image, the path mio_hf_convert stores, ...). NULL is a
 * no-op. */
MIO_API void mio_free(void *p);

/* --- callbacks shared by the modules --- */
/** Sink for mio_writer_write_cb / mio_writer_begin_cb and mio_st_save_cb(_sized):
 * return 0 on success, any other value aborts the write with MIO_ERR_IO. user
 * is handed to it untouched and may be NULL. */
typedef int (*mio_write_fn)(void *user, const void *data, size_t len);

/** Source for mio_st_read_frame: read up to len bytes into buf; return the count
 * (0 at end of stream) or a negative value on error. user is handed to it
 * untouched and may be NULL. */
typedef int64_t (*mio_read_fn)(void *user, void *buf, size_t len);
/** Progress of the long calls (mio_quantize, the conversions, mio_hf_convert,
 * mio_ptqtp_export): tensors done of total, bytes of input consumed of total.
 * Return non-zero to cancel (the call then fails with MIO_ERR_CANCELLED,
 * nothing written). */
typedef int (*mio_quant_progress_fn)(void *user, int64_t done, int64_t total, uint64_t bytes_done, uint64_t bytes_total);

/* ------------------------------------------------------------------------- */
/** Tensor types: the codes are ggml's wire codes.                            */
/* ------------------------------------------------------------------------- */
enum {
    MIO_TYPE_F32 = 0,  MIO_TYPE_F16 = 1,   MIO_TYPE_Q4_0 = 2,  MIO_TYPE_Q4_1 = 3,
    /** 4 and 5 were Q4_2/Q4_3, removed from ggml */
    MIO_TYPE_Q5_0 = 6, MIO_TYPE_Q5_1 = 7,  MIO_TYPE_Q8_0 = 8,  MIO_TYPE_Q8_1 = 9,
    MIO_TYPE_Q2_K = 10, MIO_TYPE_Q3_K = 11, MIO_TYPE_Q4_K = 12, MIO_TYPE_Q5_K = 13,
    MIO_TYPE_Q6_K = 14, MIO_TYPE_Q8_K = 15,
    MIO_TYPE_IQ2_XXS = 16, MIO_TYPE_IQ2_XS = 17, MIO_TYPE_IQ3_XXS = 18, MIO_TYPE_IQ1_S = 19,
    MIO_TYPE_IQ4_NL = 20, MIO_TYPE_IQ3_S = 21, MIO_TYPE_IQ2_S = 22, MIO_TYPE_IQ4_XS = 23,
    MIO_TYPE_I8 = 24, MIO_TYPE_I16 = 25, MIO_TYPE_I32 = 26, MIO_TYPE_I64 = 27,
    MIO_TYPE_F64 = 28, MIO_TYPE_IQ1_M = 29, MIO_TYPE_BF16 = 30,
    /** 31..33 and 36..38 were interleaved Q4_0/IQ4_NL layouts, removed from ggml */
    MIO_TYPE_TQ1_0 = 34, MIO_TYPE_TQ2_0 = 35,
    MIO_TYPE_MXFP4 = 39, MIO_TYPE_NVFP4 = 40, MIO_TYPE_Q1_0 = 41, MIO_TYPE_Q2_0 = 42,
    MIO_TYPE_GGML_COUNT = 43 /* one past the highest ggml code this library knows */
};

/** MIO_TYPE_GGML_COUNT of the library actually loaded (43 in 0.1): a program
 * compiled against an older header, whose constant is smaller, asks here how
 * far the ggml codes this library knows go (mio_type_name is NULL for the
 * removed ones below it). */
MIO_API int mio_type_count(void);
/** Lower-case ggml name ("q4_K", "f16", "iq2_xxs"); NULL for an unknown or removed code. */
MIO_API const char *mio_type_name(int type);
/** Code for a name (case-insensitive: "Q4_K", "q4_k"), or -1 (also for NULL). */
MIO_API int mio_type_from_name(const char *name);
/** Elements per block (1 for scalar types) and bytes per block; 0 for unknown codes. */
MIO_API int64_t mio_type_block_size(int type);
MIO_API size_t mio_type_block_bytes(int type);
/** Byte size of a tensor of type with n_dims dims ne[] (innermost first).
 * Errors: unknown type, n_dims not in 1..4, NULL ne or out, negative dim, ne[0]
 * not a multiple of the block size, overflow. */
MIO_API mio_status mio_type_nbytes(int type, uint32_t n_dims, const int64_t *ne, uint64_t *out);

/* --- half-precision scalars --- */
MIO_API float mio_fp16_to_f32(uint16_t h);
MIO_API uint16_t mio_f32_to_fp16(float f);   /**< round to nearest even, overflow to inf, NaN -> sign|0x7e00 (as ggml) */
/** fp16 -> f32 is exact; a signalling NaN comes back quiet (as ggml). */
MIO_API float mio_bf16_to_f32(uint16_t h);
MIO_API uint16_t mio_f32_to_bf16(float f);   /**< round to nearest even, NaN quieted */

/* ------------------------------------------------------------------------- */
/** GGUF: reading                                                             */
/* ------------------------------------------------------------------------- */
typedef struct mio_gguf_file mio_gguf_file;

/** GGUF metadata value types (wire codes). */
typedef enum mio_gguf_type {
    MIO_GGUF_U8 = 0, MIO_GGUF_I8 = 1, MIO_GGUF_U16 = 2, MIO_GGUF_I16 = 3,
    MIO_GGUF_U32 = 4, MIO_GGUF_I32 = 5, MIO_GGUF_F32 = 6, MIO_GGUF_BOOL = 7,
    MIO_GGUF_STRING = 8, MIO_GGUF_ARRAY = 9, MIO_GGUF_U64 = 10, MIO_GGUF_I64 = 11,
    MIO_GGUF_F64 = 12
} mio_gguf_type;

/** "u8", "i8", ..., "string", "array", "f64"; NULL for unknown codes. */
MIO_API const char *mio_gguf_type_name(int type);

/** Open flags. */
#define MIO_OPEN_MMAP   0u        /* default: mmap PROT_READ/MAP_PRIVATE, fd closed after mapping */
#define MIO_OPEN_READ   (1u << 0) /* read the whole file into a heap buffer instead of mapping */
#define MIO_OPEN_SPLITS (1u << 1) /* path names part 1 of a split (name-00001-of-0000N.gguf): load all parts */
#define MIO_OPEN_HEADER (1u << 3) /* a remote path (hf://ORG/REPO[@REV]/PATH, http(s)://): its header only, read
                                     with bounded range requests; tensors' data pointers are then NULL (their bytes
                                     through mio_gguf_read_tensor / mio_st_read_tensor / mio_model_read). Without it
                                     an hf:// file is pulled into huggingface_hub's cache and opened there (an
                                     http(s):// URL is refused). A local file opens as usual either way */
/** For mio_gguf_open_buffer: */
#define MIO_BUFFER_BORROW 0u        /* caller keeps the buffer alive and frees it after close */
#define MIO_BUFFER_TAKE   (1u << 2) /* the handle owns the buffer (from malloc) and free()s it exactly
                                       once, on close or on a failed open */

/** Nested arrays (arrays of arrays) are accepted up to this depth (1 = plain array). */
#define MIO_GGUF_MAX_ARRAY_DEPTH 8
/** Strings and array counts longer than this are refused. */
#define MIO_GGUF_MAX_LEN ((uint64_t)1 << 30)

/** Open the GGUF file at path (flags: MIO_OPEN_*); free with mio_gguf_close. */
MIO_API mio_status mio_gguf_open(const char *path, uint32_t flags, mio_gguf_file **out);
/** Parse a GGUF image in memory. flags: MIO_BUFFER_BORROW or MIO_BUFFER_TAKE.
 * Free with mio_gguf_close. */
MIO_API mio_status mio_gguf_open_buffer(const void *data, size_t len, uint32_t flags, mio_gguf_file **out);
/** Close a handle of mio_gguf_open / mio_gguf_open_buffer. NULL is a no-op. */
MIO_API void mio_gguf_close(mio_gguf_file *f);

/** File facts: version, alignment, the sizes and offsets, the part count and
 * part_data_offset return 0 when f is NULL. */
MIO_API uint32_t mio_gguf_version(const mio_gguf_file *f);
MIO_API uint32_t mio_gguf_alignment(const mio_gguf_file *f);
/** End of the tensor-info table (the header proper), before alignment padding. Part 1 for splits. */
MIO_API uint64_t mio_gguf_header_size(const mio_gguf_file *f);
/** Offset of the data section (header_size rounded up to the alignment). Part 1 for splits. */
MIO_API uint64_t mio_gguf_data_offset(const mio_gguf_file *f);
/** Size of the file in bytes (part 1 for splits). */
MIO_API uint64_t mio_gguf_file_size(const mio_gguf_file *f);
/** Number of files behind the handle (1 unless opened with MIO_OPEN_SPLITS). */
MIO_API uint32_t mio_gguf_part_count(const mio_gguf_file *f);
/** 1 if path names (same device and inode) one of the files f was read from —
 * any part of a split — so a tool can refuse to write its output over its own
 * input; 0 otherwise (also for a missing path, a NULL argument, or a handle
 * parsed from a buffer). */
MIO_API int mio_gguf_uses_file(const mio_gguf_file *f, const char *path);
/** Where the file has a non-zero byte outside the header and the tensor data:
 * in the padding before the data section, between tensors, or after the last
 * tensor. GGUF writers pad with zeros (so does mio_writer); a file with other
 * bytes there cannot be re-emitted byte for byte. MIO_OK with the part
 * (0-based) and the byte offset in that part's file, or MIO_ERR_NOT_FOUND when
 * every such byte is zero. Reads every padding byte (at most alignment - 1
 * per tensor). */
MIO_API mio_status mio_gguf_find_nonzero_padding(const mio_gguf_file *f, uint32_t *part, uint64_t *offset);
/** Data-section offset of part p within its own file (0 for a bad part). */
MIO_API uint64_t mio_gguf_part_data_offset(const mio_gguf_file *f, uint32_t part);

/* --- metadata --- */
MIO_API int64_t mio_gguf_kv_count(const mio_gguf_file *f);               /**< -1 if f is NULL */
/** Index of key (NUL-terminated) or -1 (also when f or key is NULL). O(1) (hash lookup). */
MIO_API int64_t mio_gguf_find_key(const mio_gguf_file *f, const char *key);
MIO_API mio_str mio_gguf_kv_key(const mio_gguf_file *f, int64_t i);     /**< {NULL,0} on bad index or NULL f */
MIO_API int mio_gguf_kv_type(const mio_gguf_file *f, int64_t i);        /**< mio_gguf_type, -1 on bad index or NULL f */

/** A metadata value exactly as on the wire. For arrays, elem_type/count describe
 * the elements and data/size span the element bytes (after the element type and
 * count fields). For scalars count is 1 and data/size span the value itself; for
 * strings data/size span the string bytes. */
typedef struct mio_gguf_value {
    int type;            /**< mio_gguf_type */
    int elem_type;       /**< arrays: element type; otherwise -1 */
    uint64_t count;      /**< arrays: element count; otherwise 1 */
    const void *data;    /**< view into the file */
    size_t size;         /**< bytes at data */
    uint32_t depth;      /**< arrays: nesting depth (1 = array of scalars/strings) */
} mio_gguf_value;

MIO_API mio_status mio_gguf_kv_value(const mio_gguf_file *f, int64_t i, mio_gguf_value *out);
/** Sized outputs (docs/ABI.md): out is the caller's struct of out_size bytes
 * (pass sizeof *out). Its first min(out_size, the library's size) bytes are
 * filled and any bytes past the library's size (fields of a newer header) are
 * zeroed, so the struct can gain fields at its end. The unsized calls fill
 * the 0.1 layout, and only that, in every 0.x version. */
MIO_API mio_status mio_gguf_kv_value_sized(const mio_gguf_file *f, int64_t i, mio_gguf_value *out, size_t out_size);
/** The whole wire encoding of entry i's value (type field excluded), for verbatim copies. */
MIO_API mio_status mio_gguf_kv_raw(const mio_gguf_file *f, int64_t i, mio_str *out);

/** Widening getters. Integers: any integer type (and bool) widens; a u64 >= 2^63
 * read as i64, or a negative value read as u64, is MIO_ERR_OUT_OF_RANGE. Floats:
 * f32/f64 widen to double (integers are not converted). bool reads only bool.
 * Other types: MIO_ERR_TYPE_MISMATCH. */
MIO_API mio_status mio_gguf_kv_i64(const mio_gguf_file *f, int64_t i, int64_t *out);
MIO_API mio_status mio_gguf_kv_u64(const mio_gguf_file *f, int64_t i, uint64_t *out);
MIO_API mio_status mio_gguf_kv_f64(const mio_gguf_file *f, int64_t i, double *out);
MIO_API mio_status mio_gguf_kv_bool(const mio_gguf_file *f, int64_t i, int *out);
MIO_API mio_status mio_gguf_kv_str(const mio_gguf_file *f, int64_t i, mio_str *out);

/** Element j of the array at entry i, widened the same way. All O(1): the offsets
 * of string-array elements are recorded while parsing. */
MIO_API mio_status mio_gguf_arr_i64(const mio_gguf_file *f, int64_t i, uint64_t j, int64_t *out);
MIO_API mio_status mio_gguf_arr_u64(const mio_gguf_file *f, int64_t i, uint64_t j, uint64_t *out);
MIO_API mio_status mio_gguf_arr_f64(const mio_gguf_file *f, int64_t i, uint64_t j, double *out);
MIO_API mio_status mio_gguf_arr_str(const mio_gguf_file *f, int64_t i, uint64_t j, mio_str *out);

/** Element j of an array value (any element type, nested arrays included), as a
 * value of its own. O(j) for string/array elements, O(1) otherwise. */
MIO_API mio_status mio_gguf_value_elem(const mio_gguf_value *arr, uint64_t j, mio_gguf_value *out);
/** The same with a sized output (as mio_gguf_kv_value_sized). */
MIO_API mio_status mio_gguf_value_elem_sized(const mio_gguf_value *arr, uint64_t j, mio_gguf_value *out,
                                             size_t out_size);
/** Widen a scalar value (same rules as the kv getters). */
MIO_API mio_status mio_gguf_value_i64(const mio_gguf_value *v, int64_t *out);
MIO_API mio_status mio_gguf_value_u64(const mio_gguf_value *v, uint64_t *out);
MIO_API mio_status mio_gguf_value_f64(const mio_gguf_value *v, double *out);

/* --- tensors --- */
typedef struct mio_gguf_tensor {
    mio_str name;
    uint32_t n_dims;     /**< 1..4 */
    int64_t ne[4];       /**< GGUF order: ne[0] is the innermost (row length); unused dims are 1 */
    int type;            /**< ggml type code */
    uint64_t offset;     /**< relative to its part's data section */
    const void *data;    /**< view of the tensor bytes */
    uint64_t nbytes;
    uint32_t part;       /**< 0-based index of the file holding it (0 unless split) */
} mio_gguf_tensor;

MIO_API int64_t mio_gguf_tensor_count(const mio_gguf_file *f);          /**< -1 if f is NULL */
MIO_API mio_status mio_gguf_tensor_info(const mio_gguf_file *f, int64_t i, mio_gguf_tensor *out);
/** The same with a sized output (out_size = sizeof *out; as mio_gguf_kv_value_sized). */
MIO_API mio_status mio_gguf_tensor_info_sized(const mio_gguf_file *f, int64_t i, mio_gguf_tensor *out,
                                              size_t out_size);
/** Index of the tensor named name (NUL-terminated) or -1 (also when f or name is NULL). O(1). */
MIO_API int64_t mio_gguf_find_tensor(const mio_gguf_file *f, const char *name);
/** Copy len bytes of tensor i's data, starting offset bytes into it, to buf,
 * reading the file with pread rather than through the mapping: a file truncated
 * after it was opened is MIO_ERR_TRUNCATED naming the tensor, its current size
 * and the missing bytes, never a SIGBUS (docs/SECURITY.md "Files that change").
 * A handle opened from a buffer or with MIO_OPEN_READ copies from memory.
 * offset + len beyond the tensor is MIO_ERR_OUT_OF_RANGE; buf may be NULL when
 * len is 0. Thread-safe (pread). */
MIO_API mio_status mio_gguf_read_tensor(const mio_gguf_file *f, int64_t i, uint64_t offset, void *buf, size_t len);
/** Logical [rows, cols] of a 2-D tensor (rows = ne[1], cols = ne[0]). */
MIO_API mio_status mio_gguf_tensor_shape2d(const mio_gguf_tensor *t, int64_t *rows, int64_t *cols);

/** Transfer the file mapping to the caller: afterwards mio_gguf_close no longer
 * unmaps, and every view stays valid until mio_gguf_unmap(*addr, *len) (the
 * mapping's destructor). For heap, buffer and split loads nothing is
 * transferred: *addr = NULL, *len = 0, MIO_OK. */
MIO_API mio_status mio_gguf_take_mapping(mio_gguf_file *f, void **addr, size_t *len);
/** Unmap what mio_gguf_take_mapping handed out. addr NULL (what take_mapping
 * gives for heap loads) is a no-op: MIO_OK. */
MIO_API mio_status mio_gguf_unmap(void *addr, size_t len);

/** madvise(WILLNEED / DONTNEED) over [ptr, ptr+len), rounded out to pages and
 * clipped to f's mappings. Best effort: a no-op for heap/buffer loads, for
 * ranges outside f's mappings and for a NULL f or ptr. */
MIO_API void mio_gguf_prefetch(const mio_gguf_file *f, const void *ptr, size_t len);
MIO_API void mio_gguf_release(const mio_gguf_file *f, const void *ptr, size_t len);

/* ------------------------------------------------------------------------- */
/** GGUF: writing, metadata edits, splitting                                  */
/* ------------------------------------------------------------------------- */
typedef struct mio_writer mio_writer;

/** Writer flags. */
#define MIO_WRITER_DEFAULT 0u
/** With no tensors, end the file right after the header (gguf-py's layout)
 * instead of padding the empty data section to the alignment (ggml's). */
#define MIO_WRITER_NO_EMPTY_PAD (1u << 0)

/** A new, empty writer (flags: MIO_WRITER_*); free with mio_writer_free. */
MIO_API mio_status mio_writer_new(uint32_t flags, mio_writer **out);
/** Frees the writer; an unfinished streamed path write removes its temp file. NULL is a no-op. */
MIO_API void mio_writer_free(mio_writer *w);

/** Typed metadata: the setter fixes the wire type. Setting an existing key replaces
 * its value in place (file order kept). key is NUL-terminated and non-empty.
 * Setting general.alignment (as u32) changes the writer's alignment; it must be a
 * power of two in 1..2^20. */
MIO_API mio_status mio_writer_set_u8(mio_writer *w, const char *key, uint8_t v);
MIO_API mio_status mio_writer_set_i8(mio_writer *w, const char *key, int8_t v);
MIO_API mio_status mio_writer_set_u16(mio_writer *w, const char *key, uint16_t v);
MIO_API mio_status mio_writer_set_i16(mio_writer *w, const char *key, int16_t v);
MIO_API mio_status mio_writer_set_u32(mio_writer *w, const char *key, uint32_t v);
MIO_API mio_status mio_writer_set_i32(mio_writer *w, const char *key, int32_t v);
MIO_API mio_status mio_writer_set_u64(mio_writer *w, const char *key, uint64_t v);
MIO_API mio_status mio_writer_set_i64(mio_writer *w, const char *key, int64_t v);
MIO_API mio_status mio_writer_set_f32(mio_writer *w, const char *key, float v);
MIO_API mio_status mio_writer_set_f64(mio_writer *w, const char *key, double v);
MIO_API mio_status mio_writer_set_bool(mio_writer *w, const char *key, int v);
/** s: len bytes, copied (any bytes allowed); may be NULL when len is 0. */
MIO_API mio_status mio_writer_set_str(mio_writer *w, const char *key, const char *s, size_t len);
/** Array of a fixed-width element type (not string/array): n elements at data,
 * copied; data may be NULL when n is 0. */
MIO_API mio_status mio_writer_set_arr(mio_writer *w, const char *key, int elem_type, const void *data, uint64_t n);
/** Array of n strings; lens may be NULL (then each strs[k] is NUL-terminated).
 * Copied. strs may be NULL when n is 0. */
MIO_API mio_status mio_writer_set_arr_str(mio_writer *w, const char *key, const char *const *strs,
                                          const size_t *lens, uint64_t n);
/** Remove a key; MIO_ERR_NOT_FOUND if absent. Removing general.alignment restores
 * the default alignment (32). */
MIO_API mio_status mio_writer_remove_key(mio_writer *w, const char *key);
/** Copy entry i of src byte-verbatim (exact wire type kept); the bytes are copied.
 * A NULL src is MIO_ERR_INVALID_ARG ("source file src is NULL"). */
MIO_API mio_status mio_writer_copy_kv(mio_writer *w, const mio_gguf_file *src, int64_t i);
/** Copy every entry of src in file order, except the n_skip NUL-terminated keys in
 * skip (skip may be NULL when n_skip is 0; NULL entries in it are ignored). */
MIO_API mio_status mio_writer_copy_all_kv(mio_writer *w, const mio_gguf_file *src,
                                          const char *const *skip, size_t n_skip);
MIO_API int64_t mio_writer_kv_count(const mio_writer *w);    /**< -1 if w is NULL */
MIO_API uint32_t mio_writer_alignment(const mio_writer *w);  /**< 0 if w is NULL */

/** Tensors, in file order. add_tensor borrows data (len must equal the type x
 * dims size; data may be NULL only when len is 0) until the write completes;
 * declare_tensor announces a tensor whose data is streamed later. Names:
 * non-empty, < 64 bytes, unique. The data section (every tensor padded to the
 * alignment) must stay below 2^64 bytes: a tensor that would take it further is
 * refused with MIO_ERR_OVERFLOW, and the begin/write calls check the layout
 * again (general.alignment may change after the tensors are declared). */
MIO_API mio_status mio_writer_add_tensor(mio_writer *w, const char *name, int type, uint32_t n_dims,
                                         const int64_t *ne, const void *data, size_t len);
MIO_API mio_status mio_writer_declare_tensor(mio_writer *w, const char *name, int type, uint32_t n_dims,
                                             const int64_t *ne);
MIO_API int64_t mio_writer_tensor_count(const mio_writer *w);  /**< -1 if w is NULL */
/** Size of the header as it will be written (before the data-section padding); 0 if w is NULL. */
MIO_API uint64_t mio_writer_header_size(const mio_writer *w);

/** One-shot output; every tensor must have data (add_tensor). The path write is
 * atomic: temp file in the same directory, fsync, rename; nothing is left behind
 * on failure. */
MIO_API mio_status mio_writer_write_file(mio_writer *w, const char *path);
MIO_API mio_status mio_writer_write_cb(mio_writer *w, mio_write_fn fn, void *user);
MIO_API mio_status mio_writer_write_fd(mio_writer *w, int fd);

/** Streaming output: begin writes the whole header; then one write_tensor call per
 * tensor, in order, with exactly that tensor's bytes (a tensor added with data
 * still needs its call — pass the same bytes, or NULL (with len 0 or its size) to
 * use the borrowed ones);
 * finish writes the last padding and, for a path, fsyncs and renames into place.
 * Errors: wrong length MIO_ERR_SIZE_MISMATCH, one call too many
 * MIO_ERR_TOO_MANY_TENSORS, finish before the last tensor MIO_ERR_INCOMPLETE.
 * After any error the stream is dead (temp file removed); mio_writer_free cleans up. */
MIO_API mio_status mio_writer_begin_file(mio_writer *w, const char *path);
MIO_API mio_status mio_writer_begin_cb(mio_writer *w, mio_write_fn fn, void *user);
MIO_API mio_status mio_writer_begin_fd(mio_writer *w, int fd);
MIO_API mio_status mio_writer_write_tensor(mio_writer *w, const void *data, size_t len);
/** The current tensor's bytes in pieces of any size (for tensors encoded or read
 * a chunk at a time): once the pieces add up to the tensor's size it is padded
 * and the next tensor becomes current. A piece passing the end is
 * MIO_ERR_SIZE_MISMATCH; mio_writer_write_tensor in the middle of a tensor is
 * MIO_ERR_STATE; finish with a tensor partly written is MIO_ERR_INCOMPLETE. Same
 * bytes as one mio_writer_write_tensor call. */
MIO_API mio_status mio_writer_write_tensor_part(mio_writer *w, const void *data, size_t len);
MIO_API mio_status mio_writer_finish(mio_writer *w);

/* --- metadata edits (gguf-new-metadata / gguf-set-metadata) --- */
/** One metadata edit: set KEY to a typed value, or remove KEY. Unlike
 * mio_kv_override (llama-quantize's --override-kv, which writes int as u32 and
 * float as f32 and moves the key to the end), an edit sets the exact wire type
 * given and keeps an existing key where it is. See docs/TOOLS.md. */
#define MIO_KV_SET 0
#define MIO_KV_REMOVE 1
/** GGUF keys are at most this many bytes (the GGUF specification's limit). */
#define MIO_GGUF_MAX_KEY 65535u

typedef struct mio_kv_edit {
    const char *key;      /**< NUL-terminated, 1..MIO_GGUF_MAX_KEY bytes */
    int op;               /**< MIO_KV_SET or MIO_KV_REMOVE (then the fields below are ignored) */
    int type;             /**< MIO_KV_SET: a scalar mio_gguf_type or MIO_GGUF_STRING (no arrays) */
    uint64_t u64;         /**< u8, u16, u32, u64 and bool (0 or 1) */
    int64_t i64;          /**< i8, i16, i32, i64 */
    double f64;           /**< f32 (must be finite within f32 range, or inf/NaN; rounded to f32), f64 */
    const char *str;      /**< MIO_GGUF_STRING: str_len bytes, any bytes (NUL too); may be NULL when str_len is 0 */
    size_t str_len;
} mio_kv_edit;

/** Parse "KEY=TYPE:VALUE" (llama.cpp's --override-kv syntax, wider): KEY runs to
 * the first '=', TYPE to the next ':', VALUE is everything after it (it may hold
 * '=' and ':'). TYPE: int (i32, or i64 when the value does not fit i32), float
 * (f32), bool (true, false, 1 or 0), str (or string; VALUE taken verbatim, may
 * be empty), or an exact wire type u8 i8 u16 i16 u32 i32 u64 i64 f32 f64.
 * Integers are decimal with an optional sign, nothing else (no blanks, no 0x);
 * a value outside the type's range is MIO_ERR_OUT_OF_RANGE with a message
 * naming the key, the value and the type ("key 'a': 300 is out of range for u8
 * (0 to 255)"). Floats as strtod reads them in the C locale (inf and nan
 * included; an overflowing finite value is MIO_ERR_OUT_OF_RANGE). Other errors:
 * no '=' or ':' or an unknown type MIO_ERR_INVALID_ARG, an empty key
 * MIO_ERR_INVALID_KV, a key over MIO_GGUF_MAX_KEY bytes MIO_ERR_LIMIT.
 * *out is one malloc()ed block holding the edit, its key and its string (both
 * NUL-terminated); free with mio_free. */
MIO_API mio_status mio_kv_edit_parse(const char *spec, mio_kv_edit **out);

/** Apply n edits to w in order: a set replaces the value (and type) of an
 * existing key where it stands, or appends the key; a remove deletes the key,
 * and removing a key w does not hold is a no-op (both as gguf-new-metadata).
 * Every edit is checked first (key, op, type, range, bool 0/1, a valid u32
 * general.alignment): if one is invalid, w is not changed. e may be NULL when n
 * is 0. */
MIO_API mio_status mio_writer_apply_edits(mio_writer *w, const mio_kv_edit *e, size_t n);

/** Copy the GGUF model in_path (the first part of a split is followed across its
 * parts and merged, split.* dropped) into out_path with the edits applied to
 * its metadata; tensors, their order and bytes are unchanged. With n == 0 the
 * output is what mio_quantize with default parameters writes (a canonical file
 * comes out byte-identical). out_path is written atomically and may not be one
 * of the input files. e may be NULL when n is 0. */
MIO_API mio_status mio_gguf_copy_edit(const char *in_path, const char *out_path, const mio_kv_edit *e, size_t n);
/** The same streamed to an open descriptor (a pipe, stdout): no temp file. */
MIO_API mio_status mio_gguf_copy_edit_fd(const char *in_path, int fd, const mio_kv_edit *e, size_t n);

/** Edit the metadata of the GGUF file at path in place (gguf-set-metadata's job,
 * for any edit): only the bytes before the data section are rewritten, and only
 * when the new header ends in the same alignment window as the old one, so the
 * data offset and every tensor byte stay where they are (the rest of the window
 * is refilled with zeros). A header that would need more room than the data
 * offset leaves, or would end a whole alignment unit earlier (the data would
 * move), or edits that change general.alignment, are refused with MIO_ERR_LIMIT
 * or MIO_ERR_INVALID_ALIGNMENT and a message giving the bytes needed and
 * available; the file is then untouched. The file is edited as the single file
 * it is (a split part is not followed; setting or removing split.* keys in a
 * split part is MIO_ERR_SPLIT). The GGUF version field is kept.
 * Crash safety: the old header bytes are first written to
 * "<path>.mio-header-backup" and fsynced; the new header is written with
 * pwrite and fsynced; then the backup is removed. If the process or the
 * machine dies in between, the header may be torn but the backup holds the old
 * one (restore: dd if=BACKUP of=FILE conv=notrunc); while a backup exists,
 * further in-place edits of that file are refused. Signals: from the backup's
 * creation to its removal SIGINT, SIGTERM and SIGHUP are blocked on the
 * calling thread (pthread_sigmask) and the caller's mask is restored before
 * the call returns, so a Ctrl-C meanwhile is delivered then, with the file
 * consistent (a handler runs, or the default action ends the process, at that
 * point); nothing is raised by the library itself. Other threads' masks are
 * the caller's business (a process-directed signal may go to a thread that
 * does not block it). Not safe against another
 * process writing the same file at the same time. Edits that change nothing
 * write nothing. e may be NULL when n is 0. */
MIO_API mio_status mio_gguf_edit_in_place(const char *path, const mio_kv_edit *e, size_t n);
/** The four calls above for an edit array whose elements are edit_size bytes
 * apart (pass sizeof(mio_kv_edit)), so that mio_kv_edit can gain fields at its
 * end (docs/ABI.md): edit_size must be at least the 0.1 size of mio_kv_edit
 * and at most 65536, and the bytes of an edit past the fields this library
 * knows must be zero (else MIO_ERR_INVALID_ARG naming the edit). The unsized
 * calls read the 0.1 layout in every 0.x version. */
MIO_API mio_status mio_writer_apply_edits_sized(mio_writer *w, const mio_kv_edit *e, size_t n, size_t edit_size);
MIO_API mio_status mio_gguf_copy_edit_sized(const char *in_path, const char *out_path, const mio_kv_edit *e, size_t n,
                                            size_t edit_size);
MIO_API mio_status mio_gguf_copy_edit_fd_sized(const char *in_path, int fd, const mio_kv_edit *e, size_t n,
                                               size_t edit_size);
MIO_API mio_status mio_gguf_edit_in_place_sized(const char *path, const mio_kv_edit *e, size_t n, size_t edit_size);

/* --- splitting a model (llama.cpp's gguf-split --split) --- */
/** One output part, as planned (reported before anything is written). The
 * split types were named mio_split_* in 0.1: their struct tags keep those names
 * (the ABI is unchanged) and the old type names are deprecated aliases. */
typedef struct mio_split_part {
    uint32_t index;          /**< 0-based (split.no) */
    uint32_t count;          /**< number of parts (split.count) */
    const char *path;        /**< PREFIX-%05u-of-%05u.gguf */
    int64_t first_tensor;    /**< index in the input of its first tensor */
    int64_t n_tensors;
    uint64_t tensor_bytes;   /**< its tensors' sizes, each padded to 32 (what --split-max-size counts) */
    uint64_t file_bytes;     /**< size of the part file as written */
} mio_gguf_split_part;
typedef void (*mio_gguf_split_plan_fn)(void *user, const mio_gguf_split_part *part);

typedef struct mio_split_params {
    size_t size;                /**< sizeof(mio_gguf_split_params): set by mio_gguf_split_default_params */
    int64_t max_tensors;        /**< --split-max-tensors: at most this many tensors a part (0 = unused) */
    uint64_t max_bytes;         /**< --split-max-size: at most this many tensor bytes a part (0 = unused) */
    int no_tensor_first_split;  /**< part 1 holds the metadata only */
    int dry_run;                /**< plan and report, write nothing */
    mio_gguf_split_plan_fn plan; /**< optional: called once per part, in order */
    void *plan_user;
} mio_gguf_split_params;

/** Defaults: max_tensors 128 (gguf-split's default), max_bytes 0, everything off. */
MIO_API void mio_gguf_split_default_params(mio_gguf_split_params *p);
/** The defaults for a struct of size bytes (pass sizeof *p), as the _sized rule
 * says (docs/ABI.md). */
MIO_API mio_status mio_gguf_split_default_params_sized(mio_gguf_split_params *p, size_t size);
/** Split the GGUF model in_path (the first part of a split input is followed
 * across its parts) into PREFIX-00001-of-0000N.gguf .. as gguf-split --split
 * does: exactly one of max_tensors / max_bytes must be set; part 1 carries
 * every key of the input (its split.* keys dropped) and each part ends with
 * split.no (u16, 0-based), split.tensors.count (i32, the total), split.count
 * (u16); tensors keep the input order. A part is closed when the next tensor
 * would pass the limit (so a tensor larger than max_bytes goes alone into its
 * own part); a part left empty (the first tensor alone passes max_bytes) is
 * refused. Every part is written to a temp file and all
 * are renamed into place only when all are complete; an output naming an
 * input file is refused. n_parts (may be NULL) receives the part count. */
MIO_API mio_status mio_gguf_split(const char *in_path, const char *prefix, const mio_gguf_split_params *p,
                                  uint32_t *n_parts);

/* ------------------------------------------------------------------------- */
/** safetensors                                                               */
/* ------------------------------------------------------------------------- */
/** safetensors dtypes, numbered in upstream's declaration order (the order its
 * writer sorts by, descending). */
typedef enum mio_st_dtype {
    MIO_ST_BOOL = 0, MIO_ST_F4 = 1, MIO_ST_F6_E2M3 = 2, MIO_ST_F6_E3M2 = 3, MIO_ST_U8 = 4, MIO_ST_I8 = 5,
    MIO_ST_F8_E5M2 = 6, MIO_ST_F8_E4M3 = 7, MIO_ST_F8_E8M0 = 8, MIO_ST_F8_E4M3FNUZ = 9, MIO_ST_F8_E5M2FNUZ = 10,
    MIO_ST_I16 = 11, MIO_ST_U16 = 12, MIO_ST_F16 = 13, MIO_ST_BF16 = 14, MIO_ST_I32 = 15, MIO_ST_U32 = 16,
    MIO_ST_F32 = 17, MIO_ST_C64 = 18, MIO_ST_F64 = 19, MIO_ST_I64 = 20, MIO_ST_U64 = 21,
    MIO_ST_DTYPE_COUNT = 22
} mio_st_dtype;

/** Library type codes for safetensors dtypes that ggml has no code for (outside
 * ggml's range). F32/F16/BF16/F64/I8/I16/I32/I64 map to the ggml codes. */
enum {
    MIO_TYPE_BOOL = 1000, MIO_TYPE_F4 = 1001, MIO_TYPE_F6_E2M3 = 1002, MIO_TYPE_F6_E3M2 = 1003,
    MIO_TYPE_U8 = 1004, MIO_TYPE_F8_E5M2 = 1005, MIO_TYPE_F8_E4M3 = 1006, MIO_TYPE_F8_E8M0 = 1007,
    MIO_TYPE_F8_E4M3FNUZ = 1008, MIO_TYPE_F8_E5M2FNUZ = 1009, MIO_TYPE_U16 = 1010, MIO_TYPE_U32 = 1011,
    MIO_TYPE_C64 = 1012, MIO_TYPE_U64 = 1013
};

/** "F32", "BF16", "F8_E4M3", ... (upstream spelling); NULL for unknown. */
MIO_API const char *mio_st_dtype_name(int dtype);
/** dtype for an upstream name (exact, case-sensitive as upstream), or -1 (also for NULL). */
MIO_API int mio_st_dtype_from_name(const char *name);
/** MIO_ST_DTYPE_COUNT of the library actually loaded (22 in 0.1). */
MIO_API int mio_st_dtype_count(void);
/** Bits per element (4 for F4, 6 for F6_*, 8..64 otherwise); 0 for unknown. */
MIO_API uint32_t mio_st_dtype_bits(int dtype);
/** dtype <-> library type code (mio_type_name works on both ranges); -1 if none. */
MIO_API int mio_st_dtype_to_type(int dtype);
MIO_API int mio_type_to_st_dtype(int type);

typedef struct mio_st_file mio_st_file;

/** Header length cap (both ways), as upstream. */
#define MIO_ST_MAX_HEADER 100000000u

/** flags: MIO_OPEN_MMAP (0) or MIO_OPEN_READ. A path ending in ".index.json" opens
 * a sharded checkpoint (model.safetensors.index.json) as one handle over all
 * shards. Free with mio_st_close. */
MIO_API mio_status mio_st_open(const char *path, uint32_t flags, mio_st_file **out);
/** flags: MIO_BUFFER_BORROW or MIO_BUFFER_TAKE (as mio_gguf_open_buffer). Free
 * with mio_st_close. */
MIO_API mio_status mio_st_open_buffer(const void *data, size_t len, uint32_t flags, mio_st_file **out);
/** Read exactly one safetensors frame (length, header, exactly the data it
 * describes) from a stream, leaving it positioned just after the frame. Free
 * with mio_st_close. */
MIO_API mio_status mio_st_read_frame(mio_read_fn fn, void *user, mio_st_file **out);
MIO_API mio_status mio_st_read_frame_fd(int fd, mio_st_file **out);
/** Close a handle of mio_st_open, mio_st_open_buffer or mio_st_read_frame(_fd).
 * NULL is a no-op. */
MIO_API void mio_st_close(mio_st_file *f);

/** File facts; each returns 0 when f is NULL. */
MIO_API uint64_t mio_st_header_size(const mio_st_file *f);  /**< N, the JSON length (first shard) */
MIO_API uint64_t mio_st_file_size(const mio_st_file *f);    /**< bytes of the (first) file */
MIO_API uint32_t mio_st_shard_count(const mio_st_file *f);  /**< 1 unless opened from an index */
/** 1 if path names (same device and inode) one of the shard files f was read
 * from, so a tool can refuse to write over its own input; 0 otherwise (also for
 * a missing path, a NULL argument or a buffer). The index file itself is not a
 * shard: compare against the path you opened. */
MIO_API int mio_st_uses_file(const mio_st_file *f, const char *path);

typedef struct mio_st_tensor {
    mio_str name;            /**< JSON escapes decoded */
    int dtype;               /**< mio_st_dtype */
    int type;                /**< library type code (mio_st_dtype_to_type) */
    uint32_t n_dims;         /**< 0 for a scalar */
    const uint64_t *shape;   /**< n_dims entries, outermost first (row-major) */
    uint64_t data_start;     /**< data_offsets, relative to the data buffer */
    uint64_t data_end;
    const void *data;        /**< view of the tensor bytes */
    uint64_t nbytes;
    uint32_t shard;          /**< 0 unless opened from an index */
} mio_st_tensor;

MIO_API int64_t mio_st_tensor_count(const mio_st_file *f);   /**< -1 if f is NULL */
/** Tensors are indexed in data order (sorted by data_offsets; by shard first). */
MIO_API mio_status mio_st_tensor_info(const mio_st_file *f, int64_t i, mio_st_tensor *out);
/** The same with a sized output (out_size = sizeof *out; as mio_gguf_kv_value_sized). */
MIO_API mio_status mio_st_tensor_info_sized(const mio_st_file *f, int64_t i, mio_st_tensor *out, size_t out_size);
/** Index of the tensor named name (NUL-terminated) or -1 (also when f or name is NULL). */
MIO_API int64_t mio_st_find_tensor(const mio_st_file *f, const char *name);
/** Copy len bytes of tensor i's data from offset into buf through pread, as
 * mio_gguf_read_tensor (a truncated shard is MIO_ERR_TRUNCATED, never SIGBUS). */
MIO_API mio_status mio_st_read_tensor(const mio_st_file *f, int64_t i, uint64_t offset, void *buf, size_t len);
/** __metadata__ entries (string to string), sorted by key. */
MIO_API int64_t mio_st_meta_count(const mio_st_file *f);     /**< -1 if f is NULL */
/** key and value may each be NULL (that output is skipped). */
MIO_API mio_status mio_st_meta_at(const mio_st_file *f, int64_t i, mio_str *key, mio_str *value);
/** MIO_ERR_NOT_FOUND if absent; value may be NULL (an existence check). */
MIO_API mio_status mio_st_find_meta(const mio_st_file *f, const char *key, mio_str *value);

/** Copy the row-major sub-block [starts[k], ends[k]) of the leading n_ranges axes
 * (trailing axes whole) of tensor i into dst (dst_len bytes at least). Errors:
 * n_ranges > rank, start > end, end > dim, sub-byte dtypes, dst too small.
 * starts/ends may be NULL when n_ranges is 0, dst when the slice is empty;
 * written (the byte count copied) may be NULL. */
MIO_API mio_status mio_st_slice(const mio_st_file *f, int64_t i, uint32_t n_ranges, const uint64_t *starts,
                                const uint64_t *ends, void *dst, size_t dst_len, size_t *written);

/* --- writing: upstream's canonical form (byte-identical to serialize_to_file) --- */
typedef struct mio_st_entry {
    const char *name;        /**< NUL-terminated UTF-8, not empty, not "__metadata__" */
    int dtype;               /**< mio_st_dtype */
    uint32_t n_dims;
    const uint64_t *shape;
    const void *data;        /**< borrowed for the duration of the call */
    size_t nbytes;           /**< must equal dtype x shape */
} mio_st_entry;

typedef struct mio_st_meta {
    const char *key;         /**< NUL-terminated UTF-8 */
    const char *value;
} mio_st_meta;

/** Everything is validated before the first byte is written. The path write is
 * atomic (preallocated temp file in the same directory, fsync, rename). t may be
 * NULL when n is 0, meta when n_meta is 0. */
MIO_API mio_status mio_st_save_file(const char *path, const mio_st_entry *t, size_t n, const mio_st_meta *meta,
                                    size_t n_meta);
/** The same image in memory: *out is malloc()ed; free with mio_free. */
MIO_API mio_status mio_st_save_buffer(const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta,
                                      void **out, size_t *out_len);
/** The same image through a callback. */
MIO_API mio_status mio_st_save_cb(const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta,
                                  mio_write_fn fn, void *user);
/** The same image written to the open descriptor fd (a pipe, a socket, stdout)
 * from its current position: no temp file, no rename; the entries are checked
 * before the first byte is written, and on a write error what was written
 * stays written. A negative fd is MIO_ERR_INVALID_ARG; a failing write(2)
 * (a closed or read-only descriptor, a full disk) MIO_ERR_IO. */
MIO_API mio_status mio_st_save_fd(int fd, const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta);
/** Hugging Face save_pretrained layout in directory dir (created when missing,
 * its parent must exist; removed again if the save fails): tensors go, in the given
 * order, into shards of at most max_shard_bytes of tensor data (a larger tensor
 * gets a shard of its own), named model-00001-of-0000N.safetensors, plus
 * model.safetensors.index.json; a single shard is written as model.safetensors
 * with no index. *n_shards (may be NULL) receives N. Every shard and the index
 * are written to temporary files first and renamed into place only when all of
 * them are complete (the index last): a failure before that (a full disk, a
 * cancel) leaves the checkpoint that was in dir untouched and no temp file.
 * After success, shard files of an earlier save with another shard count (and
 * model.safetensors / the index when the layout changed) are removed.
 * Reentrant: any number of threads may save at once (into different dirs). */
MIO_API mio_status mio_st_save_sharded(const char *dir, const mio_st_entry *t, size_t n, const mio_st_meta *meta,
                                       size_t n_meta, uint64_t max_shard_bytes, uint32_t *n_shards);
/** The five calls above for an entry array whose elements are entry_size bytes
 * apart (pass sizeof(mio_st_entry)), so that mio_st_entry can gain fields at
 * its end (docs/ABI.md). entry_size must be at least the 0.1 size of
 * mio_st_entry and at most 65536; the bytes of an entry past the fields this
 * library knows must be zero (a program that sets a field of a newer header
 * gets MIO_ERR_INVALID_ARG naming the entry, not a silently ignored field).
 * The unsized calls read the 0.1 layout in every 0.x version. */
MIO_API mio_status mio_st_save_file_sized(const char *path, const mio_st_entry *t, size_t n, size_t entry_size,
                                          const mio_st_meta *meta, size_t n_meta);
MIO_API mio_status mio_st_save_buffer_sized(const mio_st_entry *t, size_t n, size_t entry_size, const mio_st_meta *meta,
                                            size_t n_meta, void **out, size_t *out_len);
MIO_API mio_status mio_st_save_cb_sized(const mio_st_entry *t, size_t n, size_t entry_size, const mio_st_meta *meta,
                                        size_t n_meta, mio_write_fn fn, void *user);
MIO_API mio_status mio_st_save_fd_sized(int fd, const mio_st_entry *t, size_t n, size_t entry_size,
                                        const mio_st_meta *meta, size_t n_meta);
MIO_API mio_status mio_st_save_sharded_sized(const char *dir, const mio_st_entry *t, size_t n, size_t entry_size,
                                             const mio_st_meta *meta, size_t n_meta, uint64_t max_shard_bytes,
                                             uint32_t *n_shards);

/* ------------------------------------------------------------------------- */
/** State dicts and FZT1 (docs/CHECKPOINTS.md)                                 */
/* ------------------------------------------------------------------------- */
/** A state dict is exactly one safetensors frame with no __metadata__ (any
 * safetensors reader reads it): tensor names non-empty, NUL-free, unique UTF-8,
 * not "__metadata__"; dtypes MIO_ST_F32, MIO_ST_F16, MIO_ST_BF16 or MIO_ST_I64;
 * raw little-endian bytes, no conversion either way. The saves check every
 * entry before the first byte is written (a bad one is an error naming it and
 * nothing is written) and take the entries entry_size bytes apart (pass
 * sizeof(mio_st_entry), as the mio_st_save_*_sized calls). _file writes
 * atomically (temp file, fsync, rename); _fd writes one frame at the
 * descriptor's position (a stream may hold several); _buffer mallocs the
 * image into *out (free with mio_free). */
MIO_API mio_status mio_state_dict_save_file(const char *path, const mio_st_entry *t, size_t n, size_t entry_size);
MIO_API mio_status mio_state_dict_save_fd(int fd, const mio_st_entry *t, size_t n, size_t entry_size);
MIO_API mio_status mio_state_dict_save_buffer(const mio_st_entry *t, size_t n, size_t entry_size, void **out,
                                              size_t *out_len);

/** A destination of a state-dict load: a tensor the caller owns, filled in place. */
typedef struct mio_state_dict_dest {
    const char *name;        /**< NUL-terminated, unique among the destinations */
    int dtype;               /**< MIO_ST_F32, MIO_ST_F16, MIO_ST_BF16 or MIO_ST_I64; must equal the file's */
    uint32_t n_dims;
    const uint64_t *shape;   /**< must equal the file's */
    void *data;              /**< nbytes writable bytes (may be NULL when nbytes is 0) */
    size_t nbytes;           /**< must equal dtype x shape */
} mio_state_dict_dest;
/** Renaming on load: the file's tensor `from` fills the destination named `to`. */
typedef struct mio_state_dict_alias {
    const char *from;
    const char *to;
} mio_state_dict_alias;
/** Load flag: file tensors without a destination are skipped and destinations
 * missing from the file are left as they are (without it, both are errors). */
#define MIO_STATE_DICT_LENIENT (1u << 0)

/** Fill the destinations from the safetensors frame f (mio_st_open,
 * mio_st_open_buffer or the next frame of a stream: mio_st_read_frame(_fd)).
 * Each file tensor's name goes through the alias table, then must match one
 * destination: strict one-to-one unless MIO_STATE_DICT_LENIENT (a missing, an
 * unexpected or a doubly-mapped name is an error naming it), same dtype, same
 * shape. Two passes: everything is validated first, then copied, so a load
 * that fails leaves every destination byte untouched. (f opened with
 * MIO_OPEN_MMAP is copied with pread: a file truncated by another process
 * between the passes fails the copy part-way; mio_state_dict_load_file reads
 * the file into memory first and cannot fail after validation.) __metadata__
 * entries of f are ignored. d's elements are dest_size bytes apart (pass
 * sizeof(mio_state_dict_dest)); n_loaded (may be NULL) receives the number of
 * destinations filled. */
MIO_API mio_status mio_state_dict_load(const mio_st_file *f, const mio_state_dict_dest *d, size_t n, size_t dest_size,
                                       const mio_state_dict_alias *aliases, size_t n_aliases, uint32_t flags,
                                       size_t *n_loaded);
/** The same from the file at path (read into memory, then loaded). */
MIO_API mio_status mio_state_dict_load_file(const char *path, const mio_state_dict_dest *d, size_t n,
                                            size_t dest_size, const mio_state_dict_alias *aliases, size_t n_aliases,
                                            uint32_t flags, size_t *n_loaded);

/** FZT1, the seed's positional format for parameter values: "FZT1", a u32
 * tensor count, then per tensor a u32 rank, rank u64 dims and the raw f32
 * little-endian data; no names, no dtypes, nothing after the last tensor. */
typedef struct mio_fzt1_tensor {
    uint32_t n_dims;         /**< 0: a scalar (one element) */
    const uint64_t *dims;
    const void *data;        /**< n_elements f32 (in a read file: not aligned) */
    uint64_t n_elements;     /**< the product of dims (1 for a scalar) */
} mio_fzt1_tensor;
/** Write tensors (entry_size bytes apart: pass sizeof(mio_fzt1_tensor)); every
 * entry is checked first. _file is atomic; _buffer mallocs the image (free
 * with mio_free). */
MIO_API mio_status mio_fzt1_save_file(const char *path, const mio_fzt1_tensor *t, size_t n, size_t entry_size);
MIO_API mio_status mio_fzt1_save_buffer(const mio_fzt1_tensor *t, size_t n, size_t entry_size, void **out,
                                        size_t *out_len);
typedef struct mio_fzt1_file mio_fzt1_file;
/** Read and validate a whole FZT1 file (counts and dims checked against the
 * bytes that remain, products for overflow, no trailing bytes). _buffer
 * borrows data: it must outlive the handle. Free with mio_fzt1_close. */
MIO_API mio_status mio_fzt1_open(const char *path, mio_fzt1_file **out);
MIO_API mio_status mio_fzt1_open_buffer(const void *data, size_t len, mio_fzt1_file **out);
MIO_API void mio_fzt1_close(mio_fzt1_file *f);
MIO_API int64_t mio_fzt1_count(const mio_fzt1_file *f);  /**< -1 if f is NULL */
/** Tensor i (dims and data point into the handle). */
MIO_API mio_status mio_fzt1_tensor_info(const mio_fzt1_file *f, int64_t i, mio_fzt1_tensor *out);

/** Training-checkpoint directories (the seed's §12.7; docs/CHECKPOINTS.md).
 * A checkpoint is a directory of files — state dicts, an optimizer state, any
 * other file — plus trainer_state.json (the seed's format: "format":
 * "fucina.training_checkpoint", "version": 1, u64 step and seed, optional
 * fields omitted when null) and the sentinel checkpoint.json, written last,
 * which lists every file with its size and XXH3-64. Saving: mio_ckpt_begin
 * makes a temporary directory next to dir, each add writes one file there
 * atomically, mio_ckpt_commit writes trainer_state.json and the sentinel and
 * then puts the directory at dir in one step (an earlier checkpoint at dir
 * stays complete and readable until then; after a crash at any point dir holds
 * the old complete checkpoint or the new one, never a mix). Any failure leaves
 * dir as it was; mio_ckpt_abort drops a save. Conventional names below; any
 * plain file name (no '/', no leading '.') may be added. One saver per dir. */
#define MIO_CKPT_MODEL "model.safetensors"
#define MIO_CKPT_ADAPTERS "adapters.safetensors"
#define MIO_CKPT_OPTIMIZER "optimizer.fucina"
#define MIO_CKPT_TRAINER_STATE "trainer_state.json"
#define MIO_CKPT_SENTINEL "checkpoint.json"

typedef struct mio_ckpt_save mio_ckpt_save;
/** Start a save of the checkpoint directory dir (its parent must exist; dir
 * itself may exist, as a directory: it is replaced at the commit). */
MIO_API mio_status mio_ckpt_begin(const char *dir, mio_ckpt_save **out);
/** Add a state dict file (mio_state_dict_save_file's rules). */
MIO_API mio_status mio_ckpt_add_state_dict(mio_ckpt_save *s, const char *name, const mio_st_entry *t, size_t n,
                                           size_t entry_size);
/** Add a file of len bytes: an optimizer state (MIO_CKPT_OPTIMIZER: carried
 * as an opaque blob, verified by size and hash, never interpreted) or any other. */
MIO_API mio_status mio_ckpt_add_file(mio_ckpt_save *s, const char *name, const void *data, size_t len);
/** Write trainer_state.json (step, seed, and the members of extra_json, a JSON
 * object of the optional fields or NULL; null members are omitted) and the
 * sentinel, then put the checkpoint at dir. Frees s, whatever the result. */
MIO_API mio_status mio_ckpt_commit(mio_ckpt_save *s, uint64_t step, uint64_t seed, const char *extra_json);
/** Drop a save: its temporary directory is removed, dir untouched. NULL is a no-op. */
MIO_API void mio_ckpt_abort(mio_ckpt_save *s);

typedef struct mio_ckpt mio_ckpt;
/** Open the checkpoint at dir: the sentinel must be there and valid, every file
 * it lists present with its size and hash, trainer_state.json valid (a wrong
 * marker is MIO_ERR_BAD_MAGIC, another version MIO_ERR_UNSUPPORTED_VERSION);
 * a directory without a sentinel (an interrupted save) is MIO_ERR_INCOMPLETE.
 * Files the sentinel does not list are ignored. If dir is missing and the
 * complete checkpoint an interrupted two-rename commit moved aside is next to
 * it (".NAME.old-*", file systems without RENAME_EXCHANGE), it is moved back
 * first. Free with mio_ckpt_close. */
MIO_API mio_status mio_ckpt_open(const char *dir, mio_ckpt **out);
MIO_API void mio_ckpt_close(mio_ckpt *c);
MIO_API uint64_t mio_ckpt_step(const mio_ckpt *c);          /**< 0 if c is NULL */
MIO_API uint64_t mio_ckpt_seed(const mio_ckpt *c);          /**< 0 if c is NULL */
/** The optional fields of trainer_state.json as one JSON object ("{}" when
 * none); valid until mio_ckpt_close; NULL if c is NULL. */
MIO_API const char *mio_ckpt_extra_json(const mio_ckpt *c);
MIO_API int64_t mio_ckpt_file_count(const mio_ckpt *c);     /**< -1 if c is NULL; trainer_state.json included */
MIO_API const char *mio_ckpt_file_name(const mio_ckpt *c, int64_t i); /**< NULL when out of range */
MIO_API uint64_t mio_ckpt_file_size(const mio_ckpt *c, int64_t i);    /**< 0 when out of range */
/** "dir/name" of a listed file (to open a state dict with
 * mio_state_dict_load_file, for instance); free with mio_free. */
MIO_API mio_status mio_ckpt_file_path(const mio_ckpt *c, const char *name, char **out);
/** A listed file's bytes, checked again against the sentinel's size and hash;
 * free *out with mio_free. */
MIO_API mio_status mio_ckpt_read_file(const mio_ckpt *c, const char *name, void **out, size_t *len);
/** Keep the newest keep complete checkpoints among parent's directories
 * named prefix + a decimal number ("step-100"); the older complete ones are
 * removed (each first renamed aside in one step). Complete: a valid sentinel
 * whose files are all there at their sizes (not hashed: rotating does not read
 * the checkpoints). Incomplete or foreign directories are left alone.
 * n_removed may be NULL. */
MIO_API mio_status mio_ckpt_rotate(const char *parent, const char *prefix, uint32_t keep, uint32_t *n_removed);

/* ------------------------------------------------------------------------- */
/** Conversion: GGUF <-> safetensors (docs/CONVERT.md)                         */
/* ------------------------------------------------------------------------- */
typedef struct mio_convert_params {
    size_t size;               /**< sizeof(mio_convert_params): set by mio_convert_default_params */
    int dtype;                 /**< -1: float tensors keep their type; MIO_TYPE_F32/F16/BF16: every float
                                  tensor (F32 F16 BF16 F64) is cast to it, and decoded tensors get it */
    int dequantize;            /**< GGUF -> safetensors: decode block-quantized tensors (to dtype, F32
                                  when dtype is -1); without it they are refused */
    int n_threads;             /**< decoding threads, 0 = one per core */
    uint64_t max_shard_bytes;  /**< sharded safetensors output: at most this many tensor bytes a shard
                                  (0 = 5,000,000,000, save_pretrained's "5GB") */
    const char *const *rename_from; /**< tensor renames: rename_from[k] becomes rename_to[k]; */
    const char *const *rename_to;   /**< every from must name a tensor, no name twice on either side */
    size_t n_rename;
    mio_quant_progress_fn progress; /**< optional: tensors/bytes written; non-zero cancels */
    void *progress_user;
    const mio_kv_edit *edits;  /**< metadata edits (mio_writer_apply_edits' rules), applied to the GGUF
                                  key-values before they are encoded / after they are restored */
    size_t n_edits;
} mio_convert_params;

/** Defaults: types kept, no decoding, all cores, no renames. */
MIO_API void mio_convert_default_params(mio_convert_params *p);
/** The defaults for a struct of size bytes (pass sizeof *p), as the _sized rule
 * says (docs/ABI.md). */
MIO_API mio_status mio_convert_default_params_sized(mio_convert_params *p, size_t size);
/** GGUF (the first part of a split is followed across its parts; split.* keys
 * are dropped) to safetensors in upstream's canonical form. GGUF metadata goes
 * into __metadata__ under the encoding of docs/CONVERT.md, which
 * mio_st_to_gguf reads back into the identical GGUF file. GGUF dims
 * become a shape outermost first. out is a .safetensors path (written
 * atomically), or a directory (an existing one, or a path ending in '/', or
 * DIR/model.safetensors.index.json) for a sharded checkpoint in
 * save_pretrained's layout. Nothing is written when a tensor cannot convert. */
MIO_API mio_status mio_gguf_to_st(const char *in_path, const char *out, const mio_convert_params *p);
/** The same streamed to an open descriptor (single file): no temp file. */
MIO_API mio_status mio_gguf_to_st_fd(const char *in_path, int fd, const mio_convert_params *p);
/** safetensors (a file, or a sharded checkpoint's .index.json) to GGUF. With a
 * __gguf__ layout (a file mio_gguf_to_st wrote) the GGUF is restored
 * exactly: keys in order with their wire types, tensor order, version, padding;
 * other __metadata__ keys become strings "safetensors.metadata.KEY". Names are
 * kept (renames apply); F32 F16 BF16 F64 I8 I16 I32 I64 are kept (or cast with
 * dtype); other dtypes, more than 4 dimensions and names of 64 bytes or more
 * are refused naming the tensor. out_path is written atomically. */
MIO_API mio_status mio_st_to_gguf(const char *in_path, const char *out_path, const mio_convert_params *p);
/** The same streamed to an open descriptor: no temp file. */
MIO_API mio_status mio_st_to_gguf_fd(const char *in_path, int fd, const mio_convert_params *p);

/* ------------------------------------------------------------------------- */
/** Conversion: Hugging Face checkpoints to GGUF (docs/HF_CONVERT.md)          */
/* ------------------------------------------------------------------------- */
/** A checkpoint directory (config.json, model.safetensors or sharded
 * model-0000N-of-0000M.safetensors with model.safetensors.index.json, and the
 * tokenizer files) converted as llama.cpp's convert_hf_to_gguf.py converts it:
 * the same metadata keys in the same order with the same wire types, the same
 * tensor names, order and types, byte for byte (two deliberate tokenizer
 * differences are documented in docs/HF_CONVERT.md). The classes converted are
 * listed by mio_hf_architecture. */

/** outtype values besides the ggml types MIO_TYPE_F32, _F16, _BF16, _Q8_0, _TQ1_0, _TQ2_0. */
#define MIO_HF_OUT_AUTO (-1)  /**< the reference's "auto": BF16 or F16 from the first 2-D weight's dtype */

/** One output file, reported before anything is written (also in a dry run). */
typedef struct mio_hf_file {
    uint32_t index;          /**< 0-based */
    uint32_t count;          /**< files in the output (1 unless split) */
    const char *path;        /**< as it will be written */
    int64_t n_tensors;
    uint64_t tensor_bytes;   /**< the tensors' sizes, unpadded (what --split-max-size counts); 0 with a preset (known only once quantized) */
} mio_hf_file;
typedef void (*mio_hf_file_fn)(void *user, const mio_hf_file *f);

/** One output tensor, reported before anything is written (also in a dry run). */
typedef struct mio_hf_tensor {
    int64_t index;           /**< position in the output */
    const char *name;        /**< GGUF name ("blk.0.attn_q.weight"; "rope_freqs.weight" is generated) */
    const char *source;      /**< Hugging Face name, "" for a generated tensor */
    int source_dtype;        /**< mio_st_dtype of the source (MIO_ST_F32 for a generated tensor) */
    uint32_t n_dims;
    int64_t ne[4];           /**< ggml order */
    int type;                /**< ggml type written */
    int permuted;            /**< q/k rows permuted as LlamaModel.permute */
    uint64_t nbytes;
} mio_hf_tensor;
typedef void (*mio_hf_tensor_fn)(void *user, const mio_hf_tensor *t);

struct mio_quantize_params; /* mio_quantize_params, in "Quantizing a model" below */

typedef struct mio_hf_params {
    size_t size;               /**< sizeof(mio_hf_params): set by mio_hf_default_params */
    int outtype;               /**< MIO_HF_OUT_AUTO (default) or MIO_TYPE_F32/F16/BF16/Q8_0/TQ1_0/TQ2_0 */
    int preset;                /**< MIO_PRESET_NONE (default), or a llama-quantize preset: the file
                                  convert_hf_to_gguf.py --outtype auto + llama_model_quantize writes */
    const struct mio_quantize_params *quantize; /**< with a preset: the quantizer's other settings (imatrix, overrides,
                                  ...; its preset, dry_run, plan and progress fields are ignored); NULL = defaults */
    int vocab_only;            /**< --vocab-only: metadata and tokenizer, no tensors */
    const char *pre;           /**< --pre NAME: tokenizer.ggml.pre to write instead of the detected one */
    const char *model_name;    /**< --model-name */
    int64_t split_max_tensors; /**< --split-max-tensors (0 = unused) */
    uint64_t split_max_bytes;  /**< --split-max-size in bytes (0 = unused) */
    int no_tensor_first_split; /**< --no-tensor-first-split: the first file holds the metadata only */
    int dry_run;               /**< plan and report (file and tensor callbacks), write nothing */
    int n_threads;             /**< 0 = one per core */
    mio_hf_file_fn file;       /**< optional */
    void *file_user;
    mio_hf_tensor_fn plan;     /**< optional */
    void *plan_user;
    mio_quant_progress_fn progress; /**< optional; non-zero return cancels (MIO_ERR_CANCELLED, nothing written) */
    void *progress_user;
} mio_hf_params;

/** Defaults: auto, no preset, all cores, no split, no callbacks. */
MIO_API void mio_hf_default_params(mio_hf_params *p);
/** The defaults for a struct of size bytes (pass sizeof *p), as the _sized rule
 * says (docs/ABI.md). */
MIO_API mio_status mio_hf_default_params_sized(mio_hf_params *p, size_t size);
/** Convert the checkpoint directory model_dir. out is the reference's --outfile:
 * a file path (with "{ftype}" replaced by the output type's name: "bf16",
 * "q8_0", ... or the preset's "Q4_K_M"), an existing directory (the reference's
 * default file name inside it), or NULL (that name inside model_dir). With a
 * split, out names the first part's stem as the reference does (NAME-00001-of-
 * 0000N.gguf). Every file is written to a temp file and renamed into place only
 * when all are complete; on any error nothing is left. The path of the first
 * file written is stored in *written (malloc()ed; free with mio_free) when
 * written is not NULL. */
MIO_API mio_status mio_hf_convert(const char *model_dir, const char *out, const mio_hf_params *p, char **written);
/** The checkpoint classes mio_hf_convert converts, one per call: the i-th
 * (0-based) config.json "architectures" name ("LlamaForCausalLM"), NULL for i
 * past the last (or negative). gguf_arch (optional) receives the
 * general.architecture it converts to ("llama"), or NULL. The order is the
 * table's, stable within a version; `mio-convert-hf --list-architectures`
 * prints it. */
MIO_API const char *mio_hf_architecture(int i, const char **gguf_arch);

/* ------------------------------------------------------------------------- */
/** Block codecs (f32 <-> ggml wire bytes) and dot products                    */
/* ------------------------------------------------------------------------- */
/** Encode n floats (a whole number of blocks; may span many rows) into dst, which
 * must be exactly the wire size of n elements (src and dst may be NULL only when
 * n is 0, for every codec call). Byte-exact with ggml's
 * ggml_quantize_chunk(type, src, dst, 0, rows, n_per_row, NULL) for every type
 * ggml quantizes without an importance matrix. Block types refuse NaN/inf input
 * (MIO_ERR_NON_FINITE, naming the first bad index); f16/bf16 casts do not check.
 * Any pointer alignment is accepted. */
MIO_API mio_status mio_encode_f32(int type, const float *src, size_t n, void *dst, size_t dst_len);
/** Decode src (exactly the wire size of n elements) into n floats. Bit-exact with
 * ggml's to_float for any input bytes. */
MIO_API mio_status mio_decode_f32(int type, const void *src, size_t src_len, float *dst, size_t n);
/** Importance-weighted encode: rows of n_per_row elements (n a multiple of it),
 * imatrix holds n_per_row per-column weights (NULL = plain encode). Byte-exact
 * with ggml_quantize_chunk(type, src, dst, 0, n / n_per_row, n_per_row, imatrix). */
MIO_API mio_status mio_encode_f32_imatrix(int type, const float *src, size_t n, int64_t n_per_row,
                                          const float *imatrix, void *dst, size_t dst_len);
/** mio_encode_f32 / mio_decode_f32 split over n_threads threads (0 = one per
 * core); the output is identical to the single-threaded call. */
MIO_API mio_status mio_encode_f32_mt(int type, const float *src, size_t n, void *dst, size_t dst_len, int n_threads);
MIO_API mio_status mio_decode_f32_mt(int type, const void *src, size_t src_len, float *dst, size_t n, int n_threads);
/** 1 if mio_encode_f32 / mio_encode_f32_imatrix (with a non-NULL imatrix) /
 * mio_decode_f32 support type, else 0. */
MIO_API int mio_type_can_encode(int type);
MIO_API int mio_type_can_encode_imatrix(int type);
MIO_API int mio_type_can_decode(int type);
/** Instruction set the codec kernels run with: "avx512", "avx2", "neon" or
 * "scalar" (portable C) — the best this CPU and build support, chosen once per
 * process. The environment variable MIO_ISA (scalar, avx2, avx512 on x86-64;
 * scalar, neon on aarch64) overrides the choice, for testing. An MIO_ISA this
 * CPU cannot run (or not one of those names) is refused, never run: this call
 * returns NULL and every codec call (mio_encode_f32*, mio_decode_f32*, and the
 * calls built on them) fails with MIO_ERR_INVALID_ARG, mio_last_error() naming
 * MIO_ISA, the missing CPU features or the accepted values. */
MIO_API const char *mio_cpu_isa(void);
/** One line describing the CPU as the library sees it, for logs and bug
 * reports: the features detected (named as Linux's /proc/cpuinfo flags name
 * them; a feature counts only when the OS saves its registers), the level in
 * use ("refused" with MIO_ISA's message) and, on x86-64, why AMX is not used:
 * "features: avx avx2 fma f16c bmi2 avx512f avx512bw avx512dq avx512vl
 * avx512_vnni avx512_bf16; level: avx512; amx: not used (this CPU lacks
 * amx_tile, amx_int8)". The AMX state is asked of the OS, never requested.
 * Never NULL; the string is static and the same for the whole process. */
MIO_API const char *mio_cpu_features(void);

/* --- dot products and matrix-vector products on quantized weights --- */
/** The activation type a weight type is multiplied with, as ggml's CPU back end
 * pairs them: MIO_TYPE_Q8_0 for q4_0 q5_0 q8_0 iq4_nl mxfp4, MIO_TYPE_Q8_1 for
 * q4_1 q5_1, MIO_TYPE_Q8_K for q2_K q3_K q4_K q5_K q6_K tq1_0 tq2_0 iq4_xs, and
 * the weight type itself for MIO_TYPE_F32, MIO_TYPE_F16 and MIO_TYPE_BF16 (f32
 * weights take f32 activations, f16 take f16, bf16 take bf16). -1 for an
 * unknown type or one without a dot-product kernel. */
MIO_API int mio_vec_dot_type(int wtype);
/** *out = the dot product of one weight row of n elements (wire bytes of type
 * wtype) with one activation row already encoded in mio_vec_dot_type(wtype)
 * (e.g. by mio_encode_f32). n must be a whole number of blocks. Integer
 * arithmetic inside each block, one rescale per block, f32 accumulation (the
 * SIMD levels add the block terms in another order: docs/KERNELS.md §7;
 * f32/f16/bf16: f32 products in 32 partial sums folded pairwise, the same float
 * on every level, within (ceil(n/32) + 6) * 2^-24 * sum|w*a|). Any alignment. A q8_K
 * activation block's 16 bsums must be the sums of its codes, as mio_encode_f32
 * writes them: some kernels (q3_K q6_K tq1_0 tq2_0, like ggml's) use them in
 * place of the codes, so a hand-made block with other bsums gives a result that
 * depends on the ISA level. */
MIO_API mio_status mio_vec_dot(int wtype, size_t n, const void *w_row, const void *act_row, float *out);
/** y = W x: w holds `rows` rows of `cols` elements of type wtype in GGUF layout
 * (rows * row bytes, each row a whole number of blocks), x is cols floats, y
 * gets rows floats. x is first encoded to mio_vec_dot_type(wtype) with the
 * library's byte-exact encoders (q8_0/q8_1/q8_K refuse NaN/inf in x:
 * MIO_ERR_NON_FINITE), then each y[r] is what mio_vec_dot gives for row r.
 * n_threads <= 0: one per core; rows are split over the threads and the result
 * is the same for every thread count. Errors: MIO_ERR_UNSUPPORTED_TYPE (unknown
 * type, or no kernel), MIO_ERR_INVALID_ARG (NULL, cols not a whole number of
 * blocks), MIO_ERR_OVERFLOW (sizes), MIO_ERR_NOMEM. */
MIO_API mio_status mio_matvec(int wtype, const void *w, size_t rows, size_t cols, const float *x, float *y,
                              int n_threads);
/** Y = X W^T for m activation rows: x is m x cols row-major f32, y is m x rows
 * row-major (y[i * rows + r] = row r of W . row i of x). Each weight block is read
 * once for all m rows; y equals m calls of mio_matvec bit for bit. Arguments and
 * errors as mio_matvec. */
MIO_API mio_status mio_matmul(int wtype, const void *w, size_t rows, size_t cols, const float *x, size_t m, float *y,
                              int n_threads);

/** Packed weights: a weight matrix copied once into the layout this CPU's
 * kernel level multiplies fastest (docs/KERNELS.md §8: tiles of 8 or 16 rows
 * whose blocks are interleaved for the int8 dot instructions), then multiplied many
 * times. An opaque in-memory object, specific to the process's ISA level: not a
 * file format. */
typedef struct mio_packed mio_packed;
/** Packs `rows` x `cols` weights of type wtype in GGUF layout (as mio_matmul
 * takes them) into *out (free with mio_packed_free). The weights are copied: w
 * may be freed afterwards. Packed layouts exist for q4_0, q8_0, iq4_nl, q4_K,
 * q5_K, q6_K and iq4_xs at the avx2, avx512 and neon levels; any other type
 * with a dot kernel (mio_vec_dot_type >= 0), and every type at the scalar
 * level, is packed as a plain copy multiplied by mio_matmul's kernel, so
 * callers need no special case
 * (mio_packed_layout says which). rows may be 0. Errors as mio_matmul
 * (MIO_ERR_UNSUPPORTED_TYPE, MIO_ERR_INVALID_ARG for NULL or cols not a whole
 * number of blocks, MIO_ERR_OVERFLOW, MIO_ERR_NOMEM); *out is NULL on error. */
MIO_API mio_status mio_pack_weights(int wtype, const void *w, size_t rows, size_t cols, mio_packed **out);
/** Y = X W^T with packed weights, arguments as mio_matmul (x: m x cols f32,
 * y: m x rows). x is quantized once per call with mio_matmul's byte-exact
 * encoder (same activation type and rounding). Each output element sums its
 * blocks in block order with the portable C kernel's f32 operations, so y
 * equals mio_matmul at the scalar level (MIO_ISA=scalar) bit for bit, for any m
 * and any thread count; against mio_matmul at a SIMD level it differs only by
 * the order of the per-block f32 additions (docs/KERNELS.md §8 gives the
 * bound). A plain-copy layout gives mio_matmul's result exactly. Threads split
 * the rows by tiles (n_threads <= 0: one per core). */
MIO_API mio_status mio_packed_matmul(const mio_packed *p, const float *x, size_t m, float *y, int n_threads);
/** The layout of p: "q4_0x8/avx2", "q4_Kx16/avx512-vnni", ... or "copy" (a
 * plain copy multiplied by mio_matmul's kernel); NULL for NULL. */
MIO_API const char *mio_packed_layout(const mio_packed *p);
/** Frees p (NULL is a no-op). */
MIO_API void mio_packed_free(mio_packed *p);

/* ------------------------------------------------------------------------- */
/** Quantizing a model (the llama-quantize replacement)                        */
/* ------------------------------------------------------------------------- */
/** Presets are llama.cpp's llama_ftype values, so a file's general.file_type
 * reads back as a preset. MIO_PRESET_NONE: no preset (the --dtype policy). */
enum {
    MIO_PRESET_NONE = -1,
    MIO_PRESET_F32 = 0, MIO_PRESET_F16 = 1, MIO_PRESET_Q4_0 = 2, MIO_PRESET_Q4_1 = 3,
    MIO_PRESET_Q8_0 = 7, MIO_PRESET_Q5_0 = 8, MIO_PRESET_Q5_1 = 9, MIO_PRESET_Q2_K = 10,
    MIO_PRESET_Q3_K_S = 11, MIO_PRESET_Q3_K_M = 12, MIO_PRESET_Q3_K_L = 13, MIO_PRESET_Q4_K_S = 14,
    MIO_PRESET_Q4_K_M = 15, MIO_PRESET_Q5_K_S = 16, MIO_PRESET_Q5_K_M = 17, MIO_PRESET_Q6_K = 18,
    MIO_PRESET_IQ2_XXS = 19, MIO_PRESET_IQ2_XS = 20, MIO_PRESET_Q2_K_S = 21, MIO_PRESET_IQ3_XS = 22,
    MIO_PRESET_IQ3_XXS = 23, MIO_PRESET_IQ1_S = 24, MIO_PRESET_IQ4_NL = 25, MIO_PRESET_IQ3_S = 26,
    MIO_PRESET_IQ3_M = 27, MIO_PRESET_IQ2_S = 28, MIO_PRESET_IQ2_M = 29, MIO_PRESET_IQ4_XS = 30,
    MIO_PRESET_IQ1_M = 31, MIO_PRESET_BF16 = 32, MIO_PRESET_TQ1_0 = 36, MIO_PRESET_TQ2_0 = 37,
    MIO_PRESET_MXFP4_MOE = 38, MIO_PRESET_Q1_0 = 40, MIO_PRESET_Q2_0 = 41
};
/** llama.cpp's general.file_type (llama_ftype) for a file whose weights are all
 * of this ggml type (MIO_TYPE_Q4_K -> 14, Q4_K_S), or -1 when the type is not a
 * weight type (q8_1, q8_K, integer and f64 types). */
MIO_API int mio_type_file_type(int type);
/** Preset for a llama-quantize type name, case-insensitive ("Q4_K_M", "q4_k";
 * Q3_K, Q4_K, Q5_K alone mean their _M), or for a number naming one as
 * llama-quantize reads it ("15" = Q4_K_M; leading blanks, a sign and trailing
 * text after the digits are accepted, as std::stoi does), or MIO_PRESET_NONE
 * (also for NULL and for llama-quantize's "COPY", which is not a preset). */
MIO_API int mio_preset_from_name(const char *name);
/** Upper-case llama-quantize name ("Q4_K_M"), or NULL for an unknown value. */
MIO_API const char *mio_preset_name(int preset);
/** For a name mio_preset_from_name does not know: the valid name nearest to it
 * (case-insensitive edit distance; "q4kmm" -> "Q4_K_M"), or NULL when nothing is
 * within half the name's length (also for NULL). For "did you mean" messages. */
MIO_API const char *mio_preset_suggest(const char *name);

/** --tensor-type REGEX=TYPE: tensors whose name matches the POSIX extended
 * regular expression (searched, not anchored, as std::regex_search) get type. */
typedef struct mio_tensor_type_override {
    const char *pattern;
    int type;
} mio_tensor_type_override;

/** --override-kv KEY=TYPE:VALUE: set in the output (after the quantizer's own keys). */
typedef struct mio_kv_override {
    const char *key;
    int type;          /**< MIO_GGUF_I64 (int), MIO_GGUF_F64 (float), MIO_GGUF_BOOL, MIO_GGUF_STRING */
    int64_t i64;
    double f64;
    int b;
    const char *str;
} mio_kv_override;

/** Parse llama-quantize's --override-kv "KEY=TYPE:VALUE" into an override: the
 * grammar of mio_kv_edit_parse (the same parser, the same value syntax and
 * messages) with TYPE one of llama-quantize's int (-> MIO_GGUF_I64 in i64),
 * float (-> MIO_GGUF_F64 in f64, within f32 range: it is written as f32), bool
 * (true, false, 1 or 0 -> MIO_GGUF_BOOL in b) or str (-> MIO_GGUF_STRING,
 * VALUE verbatim); any other TYPE is MIO_ERR_INVALID_ARG. Integers are
 * decimal, within i64 (whether |N| fits the u32 llama.cpp writes is checked by
 * mio_quantize). *out is one malloc()ed block holding the override, its key
 * and its string (both NUL-terminated); release it with mio_free. */
MIO_API mio_status mio_kv_override_parse(const char *spec, mio_kv_override **out);

/** One tensor's decision, reported to the plan callback (dry run and real run). */
typedef struct mio_quant_decision {
    int64_t index;         /**< position in the output */
    mio_str name;
    uint32_t n_dims;
    int64_t ne[4];
    int in_type, out_type;
    uint64_t in_bytes, out_bytes;
    const char *why;       /**< short reason ("preset", "output tensor", "use_more_bits", "pure", "--tensor-type", ...) */
} mio_quant_decision;
typedef void (*mio_quant_plan_fn)(void *user, const mio_quant_decision *d);

typedef struct mio_quantize_params {
    size_t size;               /**< sizeof(mio_quantize_params): set by mio_quantize_default_params */
    int preset;                /**< MIO_PRESET_*; or MIO_PRESET_NONE with dtype set */
    int dtype;                 /**< without a preset: the seed policy of mio-export-gguf --dtype (ggml type, -1 = verbatim) */
    int n_threads;             /**< 0 = one per core (default) */
    int pure;                  /**< every quantizable tensor gets the preset's default type */
    int leave_output_tensor;   /**< output.weight keeps its type */
    int allow_requantize;      /**< quantized inputs may be decoded and re-encoded */
    int keep_split;            /**< a split input gives a split output with the same parts */
    int dry_run;               /**< decide and report, write nothing */
    int output_tensor_type;    /**< -1 = the preset's rule */
    int token_embedding_type;  /**< -1 = the preset's rule */
    int experts_type;          /**< -1 = the preset's rule; else *_exps.weight get this type (requantizing allowed) */
    const mio_tensor_type_override *tensor_types;
    size_t n_tensor_types;
    const mio_kv_override *kv_overrides;
    size_t n_kv_overrides;
    const int32_t *prune_layers;   /**< block numbers to drop */
    size_t n_prune_layers;
    const char *imatrix_path;      /**< legacy .dat or GGUF imatrix; NULL = none */
    const char *const *include_weights; /**< only these tensors use the imatrix (names) */
    size_t n_include_weights;
    const char *const *exclude_weights; /**< these tensors do not */
    size_t n_exclude_weights;
    mio_quant_plan_fn plan;
    void *plan_user;
    mio_quant_progress_fn progress;
    void *progress_user;
} mio_quantize_params;

/** Defaults: no preset, verbatim, all cores, every override off. */
MIO_API void mio_quantize_default_params(mio_quantize_params *p);
/** The defaults for a caller whose struct is size bytes (pass sizeof *p): the
 * fields this library knows get their defaults, any bytes past them (fields of
 * a newer header) are zeroed, and p->size = size; size must be at least the
 * 0.1 size and at most 65536. When the struct grows, the unsized call keeps
 * writing the 0.1 bytes and only this one covers the new fields (docs/ABI.md). */
MIO_API mio_status mio_quantize_default_params_sized(mio_quantize_params *p, size_t size);
/** Quantize the GGUF model in_path (the first part of a split is followed across
 * its parts) into out_path as llama.cpp's llama_model_quantize does: same
 * tensor types, order, metadata and bytes. out_path is written atomically
 * (ignored for a dry run). */
MIO_API mio_status mio_quantize(const char *in_path, const char *out_path, const mio_quantize_params *p);
/** The same, streamed to the open descriptor fd (a pipe, a socket, stdout):
 * no temp file and no rename; on failure what was written stays written. */
MIO_API mio_status mio_quantize_fd(const char *in_path, int fd, const mio_quantize_params *p);

/* ------------------------------------------------------------------------- */
/** LoRA adapters (docs/LORA.md)                                              */
/* ------------------------------------------------------------------------- */
/** Two adapter formats are read: Hugging Face PEFT (a directory holding
 * adapter_config.json and adapter_model.safetensors, or that safetensors file
 * with adapter_config.json beside it) and Fucina's (a safetensors file with
 * layers.I.{q,k,v,o,gate,up,down}.lora_a / .lora_b, or a directory holding
 * adapters.safetensors). The whole adapter set is validated against the base
 * (pairs, ranks, names, shapes, types) before anything is written. */

/** One adapter module as applied, reported to mio_lora_params.plan in base
 * tensor order before anything is written. */
typedef struct mio_lora_module {
    const char *adapter_name;  /**< "model.layers.0.self_attn.q_proj" (PEFT, without "base_model.model.") or "layers.0.q" */
    const char *tensor;        /**< the base tensor: "blk.0.attn_q.weight" */
    int64_t rank;
    int64_t rows, cols;        /**< the base tensor as a matrix: rows = ne[1], cols = ne[0] */
    double alpha;              /**< alpha used for this module (PEFT config, alpha_pattern, or params alpha) */
    double scale;              /**< the factor of B*A: alpha/rank, or alpha/sqrt(rank) with use_rslora */
    int permuted;              /**< B's rows got the q/k row permutation of the HF -> GGUF conversion */
    int embedding;             /**< token embeddings (PEFT lora_embedding_A/B) */
    double b_factor;           /**< mio_lora_to_gguf: factor folded into lora_b (1 when none) */
    float gguf_alpha;          /**< mio_lora_to_gguf: adapter.lora.alpha as written (0 for a merge) */
} mio_lora_module;
typedef void (*mio_lora_plan_fn)(void *user, const mio_lora_module *m);

typedef struct mio_lora_params {
    size_t size;               /**< sizeof(mio_lora_params): set by mio_lora_default_params */
    const char *adapters;      /**< the adapter: a PEFT or Fucina directory or safetensors file (required) */
    int alpha_set;             /**< alpha below replaces every alpha of the adapter (PEFT lora_alpha and
                                  alpha_pattern); required for Fucina adapters, which store none */
    double alpha;
    int permute_qk;            /**< -1 (default): by the base's general.architecture (docs/LORA.md);
                                  0: never; 1: always permute B's rows for PEFT q_proj/k_proj */
    mio_lora_plan_fn plan;     /**< optional: one call per module, before writing */
    void *plan_user;
} mio_lora_params;

/** Defaults: no adapters, alpha not set, permute_qk -1, no plan callback. */
MIO_API void mio_lora_default_params(mio_lora_params *p);
/** The defaults for a struct of size bytes (pass sizeof *p), as the _sized rule
 * says (docs/ABI.md). */
MIO_API mio_status mio_lora_default_params_sized(mio_lora_params *p, size_t size);
/** Merge the adapter p->adapters into the GGUF model base_path (the first part
 * of a split is followed; split.* keys are dropped) and write out_path
 * (atomically): every targeted weight W (f32, f16 or bf16; a quantized one is
 * refused with MIO_ERR_UNSUPPORTED_TYPE) becomes W + scale * B * A, computed in
 * f32 and rounded once to W's type; every other tensor, the metadata and the
 * tensor order are copied byte-verbatim. One tensor is in memory at a time
 * (a chunk of rows of it), plus the adapter in f32. Nothing is written on any
 * error. */
MIO_API mio_status mio_lora_merge(const char *base_path, const char *out_path, const mio_lora_params *p);
/** The same streamed to an open descriptor: no temp file, no rename. */
MIO_API mio_status mio_lora_merge_fd(const char *base_path, int fd, const mio_lora_params *p);
/** Write the adapter as a llama.cpp LoRA adapter GGUF for the base base_path
 * (only its metadata and tensor shapes are read; any tensor types): the
 * base's general.architecture, general.type "adapter", adapter.type "lora",
 * adapter.lora.alpha (f32), and f32 tensors BASE_TENSOR.lora_a (ne [in, r];
 * token_embd: [r, n_vocab]) and .lora_b (ne [r, out]; token_embd: [r, n_embd]),
 * as llama_adapter_lora_init expects. Scales llama.cpp cannot express as
 * adapter.lora.alpha / r are folded into lora_b (mio_lora_module.b_factor).
 * out_path is written atomically; nothing is written on any error. */
MIO_API mio_status mio_lora_to_gguf(const char *base_path, const char *out_path, const mio_lora_params *p);
MIO_API mio_status mio_lora_to_gguf_fd(const char *base_path, int fd, const mio_lora_params *p);

/* ------------------------------------------------------------------------- */
/** PTQTP: ternary trit-planes without calibration data (docs/PTQTP.md)       */
/* ------------------------------------------------------------------------- */
/** Options of mio_ptqtp_quantize. */
typedef struct mio_ptqtp_options {
    size_t size;       /**< sizeof(mio_ptqtp_options): set by mio_ptqtp_default_options */
    int planes;        /**< K = 1, 2 or 3 (default 2) */
    int tie_scales;    /**< 1: plane scales tied to ratio 3 ([3s, s], [9s, 3s, s]); needs planes >= 2 */
    int n_threads;     /**< <= 0: one per core; the output is identical for any count */
} mio_ptqtp_options;

/** What mio_ptqtp_quantize measured. The sums (err_sq, norm_sq, groups,
 * iterations, unconverged, nonfinite) of several calls add up to those of one
 * call on all their rows (up to the rounding of the float sums). */
typedef struct mio_ptqtp_stats {
    double err_sq;        /**< sum over finite weights of (w - r)^2, r = sum of the planes as stored (fp16 scales) */
    double norm_sq;       /**< sum over finite weights of w^2 */
    double rel_err;       /**< sqrt(err_sq / norm_sq), 0 when norm_sq is 0 */
    uint64_t groups;      /**< groups of 256 solved */
    uint64_t iterations;  /**< alternation iterations summed over the groups */
    uint64_t unconverged; /**< groups stopped by the 50-iteration cap */
    uint64_t nonfinite;   /**< NaN/inf weights (trit 0 in every plane) */
    double zero_frac[3];  /**< fraction of zero trits per plane (unused planes 0) */
} mio_ptqtp_stats;

/** Defaults: planes 2, free scales, one thread per core. NULL is a no-op. */
MIO_API void mio_ptqtp_default_options(mio_ptqtp_options *o);
/** The defaults for a struct of size bytes (pass sizeof *o), as the _sized rule
 * says (docs/ABI.md). */
MIO_API mio_status mio_ptqtp_default_options_sized(mio_ptqtp_options *o, size_t size);
/** Decompose w (rows x cols row-major f32; cols a multiple of 256, one group =
 * 256 consecutive elements of a row) into o->planes ternary planes,
 * w ~ sum_k d_k T_k, T_k in {-1, 0, +1}, one scale d_k per plane and group
 * (the PTQTP method of arXiv:2509.16989 as Fucina implements it: ridge-regressed
 * scales alternating with an exhaustive 3^K trit search per element; scales
 * rounded to fp16, then one last search against the rounded scales).
 * planes[k] for k < o->planes: a buffer of plane_bytes >= rows * cols / 256 * 66
 * bytes receiving a TQ2_0 tensor of the same shape whose per-block fp16 d is that
 * plane's group scale (every plane decodes with mio_decode_f32 / ggml's TQ2_0
 * to_float; their sum is the reconstruction the stats measure). NaN/inf weights
 * are left out of the fit and get trit 0 in every plane. stats may be NULL.
 * Errors (MIO_ERR_INVALID_ARG unless said): NULL w, o, planes or planes[k],
 * o->size not set by mio_ptqtp_default_options, planes not 1..3, tie_scales not
 * 0/1 or set with planes < 2, cols not a multiple of 256, plane_bytes too small,
 * sizes overflowing (MIO_ERR_OVERFLOW), no memory (MIO_ERR_NOMEM). Planes and
 * stats are identical for any n_threads, and a row's planes do not depend on
 * the other rows (rows may be quantized in chunks). */
MIO_API mio_status mio_ptqtp_quantize(const float *w, size_t rows, size_t cols, const mio_ptqtp_options *o,
                                      void *const *planes, size_t plane_bytes, mio_ptqtp_stats *stats);

/* --- export: a model's weight matrices as trit-planes --- */
/** One input tensor as the export plans it (plan callback, before anything is
 * written, also in a dry run) and as done (done callback, after its planes
 * are written). Allocated by the library; valid during the call only. */
typedef struct mio_ptqtp_tensor {
    int64_t index;          /**< position in the input (the output keeps the input order) */
    mio_str name;           /**< the input name; the planes are NAME.ptqtp0 .. NAME.ptqtp{planes-1} */
    uint32_t n_dims;
    int64_t ne[4];          /**< GGUF order (ne[0] the row, the contract dimension); every plane has this shape */
    int type;               /**< source type */
    int planes;             /**< plane tensors (TQ2_0) replacing it; 0 = it passes through byte-verbatim */
    uint64_t in_bytes;      /**< source bytes */
    uint64_t out_bytes;     /**< bytes in the output: planes x the TQ2_0 size, or in_bytes */
    uint64_t work_bytes;    /**< memory the export holds for it: an f32 chunk of rows plus the planes
                               (0 for a tensor that passes through, which is copied in pieces) */
    const char *why;        /**< "ptqtp", "expert stack", "included"; or why it passes through: "1-D",
                               "not a matrix or an expert stack", "not a .weight", "norm",
                               "row not a multiple of 256", "empty", "integer type", "already ternary",
                               "no decoder for its type", "token embeddings", "output head",
                               "not included", "excluded", "plane names too long" */
    int64_t experts;        /**< expert stacks (3-D *_exps): ne[2]; else 0 */
    double rel_err_mean;    /**< done callback only: mean over the experts of each expert's relative
                               error (a matrix: the tensor's rel_err); 0 in the plan */
    double rel_err_max;     /**< done callback only: the largest expert's (a matrix: rel_err) */
} mio_ptqtp_tensor;
typedef void (*mio_ptqtp_plan_fn)(void *user, const mio_ptqtp_tensor *t);
/** After a tensor's planes are written: s sums the solver's statistics over
 * the tensor's row chunks and experts (err_sq, norm_sq, groups, iterations,
 * unconverged, nonfinite summed; rel_err = sqrt(err_sq / norm_sq); zero_frac
 * weighted by groups). */
typedef void (*mio_ptqtp_done_fn)(void *user, const mio_ptqtp_tensor *t, const mio_ptqtp_stats *s);

typedef struct mio_ptqtp_params {
    size_t size;               /**< sizeof(mio_ptqtp_params): set by mio_ptqtp_default_params */
    int planes;                /**< K = 1, 2 or 3 (default 2) */
    int tie_scales;            /**< plane scales tied to the ratio 3 (needs planes >= 2); stamps
                                  fucina.ptqtp.tie_scales = 1 */
    int n_threads;             /**< 0 = one per core (default); the output is identical for any count */
    const char *const *include; /**< name substrings: when n_include > 0, exactly the eligible tensors whose
                                  name contains one of them are converted (token_embd and output.weight too) */
    size_t n_include;
    const char *const *exclude; /**< name substrings: tensors whose name contains one pass through */
    size_t n_exclude;
    int dry_run;               /**< plan and report, write nothing */
    mio_ptqtp_plan_fn plan;    /**< optional: once per input tensor, in order, before writing */
    void *plan_user;
    mio_ptqtp_done_fn done;    /**< optional: once per converted tensor, after its planes are written */
    void *done_user;
    mio_quant_progress_fn progress; /**< optional: tensors done and input bytes consumed, also within a
                                       tensor (after each chunk of rows); non-zero cancels */
    void *progress_user;
} mio_ptqtp_params;

/** Defaults: 2 planes, free scales, all cores, the default name policy, no callbacks. */
MIO_API void mio_ptqtp_default_params(mio_ptqtp_params *p);
/** The defaults for a struct of size bytes (pass sizeof *p), as the _sized rule
 * says (docs/ABI.md). */
MIO_API mio_status mio_ptqtp_default_params_sized(mio_ptqtp_params *p, size_t size);
/** Replace the weight matrices of the GGUF model in_path (the first part of a
 * split is followed across its parts; split.* keys are dropped) by PTQTP
 * trit-planes (mio_ptqtp_quantize) and write out_path atomically, in the
 * layout Fucina's loaders read (docs/PTQTP.md):
 *  - eligible: 2-D tensors and 3-D expert stacks (name containing "_exps"),
 *    name ending ".weight" without "norm", ne[0] a multiple of 256, a float
 *    or quantized type mio_decode_f32 reads (quantized sources are decoded
 *    first; integer types and the ternary TQ1_0 / TQ2_0 are kept); by default
 *    token_embd and output.weight pass through (p->include replaces that
 *    rule; p->exclude always subtracts);
 *  - each eligible NAME is replaced, in its place, by NAME.ptqtp0 ..
 *    NAME.ptqtp{K-1}: TQ2_0 tensors of NAME's shape whose sum is the
 *    reconstruction (an expert stack is solved expert by expert; each plane
 *    is the whole stack, plane-major);
 *  - every other tensor and every metadata entry are copied byte-verbatim,
 *    and when at least one tensor is converted fucina.ptqtp.version (u32 1)
 *    is added at the end, with fucina.ptqtp.tie_scales (u32 1) for tied scales.
 * An input that already holds planes (a fucina.ptqtp.* key or a tensor named
 * *.ptqtpN) is refused with MIO_ERR_INVALID_ARG, and so is an output naming an
 * input file. One tensor is held at a time: a chunk of its rows in f32 and its
 * planes; source pages are released as they are read. The output is identical
 * for any n_threads. Nothing is written on any error or a cancel. p NULL means
 * the defaults. */
MIO_API mio_status mio_ptqtp_export(const char *in_path, const char *out_path, const mio_ptqtp_params *p);
/** The same streamed to the open descriptor fd: no temp file, no rename; on
 * failure what was written stays written. */
MIO_API mio_status mio_ptqtp_export_fd(const char *in_path, int fd, const mio_ptqtp_params *p);

/* ------------------------------------------------------------------------- */
/** Remote files and the Hugging Face Hub (docs/HUB.md)                        */
/* ------------------------------------------------------------------------- */
/** Remote paths: "hf://ORG/REPO[\@REVISION]/PATH" (also hf://datasets/...,
 * hf://spaces/...) names a file on the Hub (HF_ENDPOINT, default
 * https://huggingface.co); "http://..." and "https://..." a plain URL. The
 * readers open them with MIO_OPEN_HEADER (the header only, fetched with bounded
 * range requests), and everything in modelio_inspect.h takes them. The Hub's
 * environment is read as huggingface_hub 2.x reads it: HF_TOKEN or the token
 * file ($HF_TOKEN_PATH, $HF_HOME/token), HF_HUB_OFFLINE, HF_HUB_CACHE /
 * HF_HOME, HF_HUB_ETAG_TIMEOUT, HF_HUB_DOWNLOAD_TIMEOUT. The token goes to the
 * Hub's origin only and is never put in a message. A library built without
 * libcurl fails every remote call with MIO_ERR_UNSUPPORTED. */

/** 1 when the library was built with HTTP support (libcurl), else 0. */
MIO_API int mio_http_supported(void);

typedef struct mio_hub_pull_params {
    size_t size;                  /**< sizeof(mio_hub_pull_params): set by mio_hub_pull_default_params */
    const char *const *include;   /**< glob patterns (fnmatch, '*' crosses '/'; "dir/" means "dir/ *"): when
                                     n_include > 0 only the files matching one are pulled */
    size_t n_include;
    const char *const *exclude;   /**< glob patterns: files matching one are not pulled */
    size_t n_exclude;
    const char *cache_dir;        /**< NULL: HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub */
    int n_threads;                /**< files fetched at once; 0 = 8 (huggingface_hub's default) */
    mio_quant_progress_fn progress; /**< optional: files done of total, bytes done of the total known so far
                                       (called from the fetching threads, one at a time); non-zero cancels */
    void *progress_user;
} mio_hub_pull_params;

/** Defaults: every file, the default cache, 8 at once, no callback. */
MIO_API void mio_hub_pull_default_params(mio_hub_pull_params *p);
/** The defaults for a struct of size bytes (pass sizeof *p), as the _sized rule says (docs/ABI.md). */
MIO_API mio_status mio_hub_pull_default_params_sized(mio_hub_pull_params *p, size_t size);
/** Download the files of hf://ORG/REPO[\@REV] (or the one file of
 * hf://ORG/REPO[\@REV]/PATH) into huggingface_hub's cache layout, so that
 * huggingface_hub finds them (snapshot_download(..., local_files_only=True))
 * and a file huggingface_hub already downloaded is not fetched again:
 * models--ORG--REPO/{blobs/ETAG, refs/REV, snapshots/COMMIT/PATH -> blob}.
 * A download is resumed from its BLOB.incomplete (a dropped connection within
 * the call, or a call after a killed one); an LFS file whose sha256 differs
 * from its etag is MIO_ERR_CHECKSUM and leaves no file under its final name;
 * two pulls into one cache at once both succeed (per-blob flock locks, as
 * huggingface_hub's). With HF_HUB_OFFLINE set no request is made: the
 * revision must be in the cache. *out (free with mio_free): the snapshot
 * directory, or the file's path in it when the URI names a file. p NULL
 * means the defaults. */
MIO_API mio_status mio_hub_pull(const char *uri, const mio_hub_pull_params *p, char **out);

/** mio_hub_convert flag: read the safetensors with range requests and store
 * nothing of them (by default they are pulled into the cache first). */
#define MIO_HUB_STREAM (1u << 0)
/** Convert the checkpoint hf://ORG/REPO[\@REV] to GGUF (mio_hf_convert, docs/HUB.md):
 * the file `convert_hf_to_gguf.py --remote ORG/REPO` writes — the conversion of
 * the repo's snapshot directory with general.name the repo id (p->model_name,
 * when set, wins) — and with out NULL the file "ORG-REPO-{ftype}.gguf" in the
 * current directory. Only what the conversion reads is fetched: the top-level
 * configuration, tokenizer and card files, then the safetensors the index names
 * (or model.safetensors), all at the commit the revision resolved to first;
 * never original/, *.bin, *.pth or another format's files. The weights are
 * pulled into huggingface_hub's cache (resumable, verified, reused; mio_hub_pull)
 * unless flags has MIO_HUB_STREAM. p->progress sees the downloads, then the
 * conversion. *written as mio_hf_convert's. */
MIO_API mio_status mio_hub_convert(const char *uri, const char *out, const mio_hf_params *p, uint32_t flags,
                                   char **written);

/* ------------------------------------------------------------------------- */
/** Deprecated names (removed in 1.0)                                          */
/* ------------------------------------------------------------------------- */
/** The 0.1 names of renamed calls and types, kept until 1.0 (docs/ABI.md
 * "Renamed names"). Each call is still exported and does exactly what the call it
 * names does (it forwards to it); each type is the same type. GCC and Clang
 * warn at each use, naming the replacement (MIO_DEPRECATED). */
MIO_API MIO_DEPRECATED("use mio_type_nbytes") mio_status mio_tensor_nbytes(int type, uint32_t n_dims,
                                                                           const int64_t *ne, uint64_t *out);
MIO_API MIO_DEPRECATED("use mio_gguf_unmap") mio_status mio_unmap(void *addr, size_t len);
MIO_API MIO_DEPRECATED("use mio_gguf_prefetch") void mio_prefetch(const mio_gguf_file *f, const void *ptr, size_t len);
MIO_API MIO_DEPRECATED("use mio_gguf_release") void mio_release(const mio_gguf_file *f, const void *ptr, size_t len);
/** The split types under their 0.1 names. */
typedef mio_gguf_split_part mio_split_part MIO_DEPRECATED("use mio_gguf_split_part");
typedef mio_gguf_split_plan_fn mio_split_plan_fn MIO_DEPRECATED("use mio_gguf_split_plan_fn");
typedef mio_gguf_split_params mio_split_params MIO_DEPRECATED("use mio_gguf_split_params");
MIO_API MIO_DEPRECATED("use mio_gguf_split_default_params") void mio_split_default_params(mio_gguf_split_params *p);
MIO_API MIO_DEPRECATED("use mio_gguf_split_default_params_sized") mio_status
mio_split_default_params_sized(mio_gguf_split_params *p, size_t size);
MIO_API MIO_DEPRECATED("use mio_gguf_to_st") mio_status mio_gguf_to_safetensors(const char *in_path, const char *out,
                                                                                const mio_convert_params *p);
MIO_API MIO_DEPRECATED("use mio_gguf_to_st_fd") mio_status mio_gguf_to_safetensors_fd(const char *in_path, int fd,
                                                                                      const mio_convert_params *p);
MIO_API MIO_DEPRECATED("use mio_st_to_gguf") mio_status mio_safetensors_to_gguf(const char *in_path,
                                                                                const char *out_path,
                                                                                const mio_convert_params *p);
MIO_API MIO_DEPRECATED("use mio_st_to_gguf_fd") mio_status mio_safetensors_to_gguf_fd(const char *in_path, int fd,
                                                                                      const mio_convert_params *p);

#ifdef __cplusplus
}
#endif
#endif /* MODELIO_H */
