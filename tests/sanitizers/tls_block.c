/* A library with thread-local data, for tls_guess.c: loaded with dlopen,
 * so each thread's copy of tls_block_words lives in a dynamic-TLS block
 * that glibc mallocs on the thread's first use, through __tls_get_addr. */
__thread long tls_block_words[2];

/* Exported by name: the build hides symbols by default. */
__attribute__((visibility("default"))) long *tls_block_address(void) {
  return tls_block_words;
}
