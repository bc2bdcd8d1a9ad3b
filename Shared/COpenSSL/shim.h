#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
// Macros Swift cannot import.
static inline long copenssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_min_proto_version(ctx, version); }
static inline long copenssl_set_tlsext_host_name(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, name); }
static inline long copenssl_ctx_set_max_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_max_proto_version(ctx, version); }
static inline long copenssl_ctx_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long copenssl_mode_release_buffers(void) { return SSL_MODE_RELEASE_BUFFERS; }
static inline uint64_t copenssl_op_no_renegotiation(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t copenssl_op_no_compression(void) { return SSL_OP_NO_COMPRESSION; }
static inline int copenssl_tls1_1_version(void) { return TLS1_1_VERSION; }
static inline int copenssl_tls1_2_version(void) { return TLS1_2_VERSION; }
static inline int copenssl_tls1_3_version(void) { return TLS1_3_VERSION; }
