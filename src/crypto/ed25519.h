/* ed25519.h: Ed25519 signature verification (RFC 8032 5.1.7, cofactorless, strict encodings).
 * Verify only: hyrax checks signatures made by minisign and ssh-keygen, it never signs. Owns no
 * state; the field and group arithmetic is private to ed25519.c. */
#ifndef HX_ED25519_H
#define HX_ED25519_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

/* Checks sig (R || S) over msg[0..len) under the public key pk. Returns 0 when it verifies;
 * HX_EFORMAT (err says which) for a non-canonical S (S >= L), a public key or R that is not the
 * canonical encoding of a curve point or has small order (as libsodium refuses them), and
 * HX_EPERM when the equation [S]B = R + [k]A fails. */
int hxi_ed25519_verify(const uint8_t sig[64], const uint8_t *msg, size_t len, const uint8_t pk[32],
                       hx_error *err);

#endif
