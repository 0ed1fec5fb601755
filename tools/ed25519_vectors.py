#!/usr/bin/env python3
"""Writes tests/data/sig/libsodium_vectors.txt: Ed25519 signatures made by libsodium (PyNaCl), the
reference for tests/test_ed25519.c. One line per case: public key, message, signature (hex; "-" for
an empty message). Deterministic: seeds and messages come from SHA-512 of a counter.
Run: /work/benchvenv/bin/python tools/ed25519_vectors.py > tests/data/sig/libsodium_vectors.txt"""
import hashlib

import nacl.signing

for i in range(64):
    seed = hashlib.sha512(b"hyrax-seed-%d" % i).digest()[:32]
    n = (i * 37) % 300
    msg = b"".join(hashlib.sha512(b"hyrax-msg-%d-%d" % (i, j)).digest() for j in range(5))[:n]
    key = nacl.signing.SigningKey(seed)
    sig = key.sign(msg).signature
    print(key.verify_key.encode().hex(), msg.hex() or "-", sig.hex())
