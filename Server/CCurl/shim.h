#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per argument kind.
static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) { return curl_easy_setopt(handle, option, value); }
static inline CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) { return curl_easy_setopt(handle, option, value); }
static inline CURLcode ccurl_setopt_size(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode ccurl_setopt_callback(CURL *handle, CURLoption option, ccurl_data_callback callback) { return curl_easy_setopt(handle, option, callback); }
static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl_easy_getinfo(handle, info, value); }
// The opening of each connection's socket, with the address libcurl is about to connect to: where outbound addresses
// are checked (HTTPTransfer).
static inline CURLcode ccurl_setopt_opensocket(CURL *handle, curl_opensocket_callback callback) { return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback); }
