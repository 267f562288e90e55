/* TEMPORARY local stub (not committed) */
#include "quantize/qz_driver.h"
mio_status qz_imatrix_load(const char *path, qz_imatrix **out) { (void)path; *out = NULL; return err_set(MIO_ERR_UNSUPPORTED_TYPE, "imatrix: stub"); }
void qz_imatrix_free(qz_imatrix *im) { (void)im; }
const float *qz_imatrix_find(const qz_imatrix *im, const char *name, size_t len, size_t *n) { (void)im; (void)name; (void)len; *n = 0; return NULL; }
mio_status qz_imatrix_kv(const qz_imatrix *im, const char *path, mio_writer *w) { (void)im; (void)path; (void)w; return MIO_OK; }
mio_status qz_preset_plan(const mio_gguf_file *f, const mio_quantize_params *p, const qz_imatrix *im, qz_item *items, int64_t *n) { (void)f; (void)p; (void)im; (void)items; (void)n; return err_set(MIO_ERR_UNSUPPORTED_TYPE, "preset: stub"); }
mio_status qz_preset_extra_kv(const mio_gguf_file *f, const mio_quantize_params *p, mio_writer *w) { (void)f; (void)p; (void)w; return MIO_OK; }
int mio_preset_from_name(const char *name) { (void)name; return -1; }
const char *mio_preset_name(int preset) { (void)preset; return NULL; }
