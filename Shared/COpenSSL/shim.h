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
// For HeraldCrypto: PEM keys, EC points and ECDSA signatures, keys built from raw parameters.
#include <openssl/pem.h>
#include <openssl/ec.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
// Macros HeraldCrypto needs that Swift cannot import (a variadic call, composite selection flags).
static inline EVP_PKEY *copenssl_ec_generate_p256(void) { return EVP_EC_gen("P-256"); }
static inline int copenssl_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int copenssl_evp_pkey_keypair_selection(void) { return EVP_PKEY_KEYPAIR; }
static inline int copenssl_evp_ctrl_gcm_get_tag(void) { return EVP_CTRL_GCM_GET_TAG; }
static inline int copenssl_evp_ctrl_gcm_set_tag(void) { return EVP_CTRL_GCM_SET_TAG; }
// OSSL_PARAM_BLD keeps these pointers (not copies) in the parameters it builds, so they must outlive the call that
// passes them: string literals with static storage, which Swift's temporary C strings are not.
static inline const char *copenssl_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *copenssl_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *copenssl_param_priv_key(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }
static inline const char *copenssl_p256_group_name(void) { return SN_X9_62_prime256v1; }
