#!/bin/sh
# Writes tests/data/sig/: keys and signatures made by the real minisign and ssh-keygen (Debian
# packages minisign, openssh-client), plus tampered copies, for tests/test_sig.c. Secret keys are
# throwaway test keys and are not kept. Run from the repository root: sh tools/gen_sig_fixtures.sh
# New keys each run: fuzz/fuzz_sig.c embeds alice.pub and allowed_signers, and fuzz/corpus/sig/ holds
# copies of the signatures; update both with the fixtures.
set -eu
out=tests/data/sig
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
printf '# Signed note\n\nThe kube-scheduler places pods on nodes.\n' > "$out/doc.md"
printf '# Signed note\n\nThe kube-scheduler places pods on servers.\n' > "$out/doc_tampered.md"

# minisign: two key pairs; the document signed prehashed (the default, "ED") and legacy ("Ed").
minisign -G -W -p "$out/alice.pub" -s "$tmp/alice.key" >/dev/null
minisign -G -W -p "$out/mallory.pub" -s "$tmp/mallory.key" >/dev/null
minisign -S -s "$tmp/alice.key" -m "$out/doc.md" -x "$out/doc.md.minisig" -t "alice signed doc.md" >/dev/null
minisign -S -l -s "$tmp/alice.key" -m "$out/doc.md" -x "$out/doc_legacy.md.minisig" -t "legacy" >/dev/null
minisign -S -s "$tmp/mallory.key" -m "$out/doc.md" -x "$out/doc_mallory.md.minisig" >/dev/null
# The trusted comment edited after signing: the global signature must fail.
sed '3s/alice signed/bob signed/' "$out/doc.md.minisig" > "$out/doc_comment.md.minisig"

# OpenSSH: ed25519 keys for two principals, one RSA key (a type hyrax refuses).
ssh-keygen -q -t ed25519 -N '' -C alice@example.com -f "$tmp/alice_ssh"
ssh-keygen -q -t ed25519 -N '' -C bob@example.com -f "$tmp/bob_ssh"
ssh-keygen -q -t rsa -b 2048 -N '' -C carol@example.com -f "$tmp/carol_rsa"
cp "$tmp/alice_ssh.pub" "$out/alice_ssh.pub"
ssh-keygen -lf "$out/alice_ssh.pub" | cut -d" " -f2 > "$out/alice_ssh.fp"   # the key id tests expect
sign() { cp "$out/doc.md" "$tmp/d"; ssh-keygen -q -Y sign "$@" "$tmp/d"; }
sign -n hyrax -f "$tmp/alice_ssh"; mv "$tmp/d.sig" "$out/doc.md.sig"
sign -n hyrax -O hashalg=sha256 -f "$tmp/alice_ssh"; mv "$tmp/d.sig" "$out/doc_sha256.md.sig"
sign -n git -f "$tmp/alice_ssh"; mv "$tmp/d.sig" "$out/doc_git.md.sig"
sign -n hyrax -f "$tmp/bob_ssh"; mv "$tmp/d.sig" "$out/doc_bob.md.sig"
sign -n hyrax -f "$tmp/carol_rsa"; mv "$tmp/d.sig" "$out/doc_rsa.md.sig"
{
    echo "# principals [options] keytype key (ssh-keygen(1) ALLOWED SIGNERS)"
    printf 'alice@example.com namespaces="hyrax,git" %s\n' "$(cut -d' ' -f1,2 "$tmp/alice_ssh.pub")"
    printf 'bob@example.com namespaces="git" %s\n' "$(cut -d' ' -f1,2 "$tmp/bob_ssh.pub")"
    printf 'carol@example.com %s\n' "$(cut -d' ' -f1,2 "$tmp/carol_rsa.pub")"
} > "$out/allowed_signers"
# The real tools agree with what the tests expect of each file.
ssh-keygen -Y verify -n hyrax -I alice@example.com -f "$out/allowed_signers" -s "$out/doc.md.sig" < "$out/doc.md" >/dev/null
minisign -Vq -p "$out/alice.pub" -m "$out/doc.md" -x "$out/doc.md.minisig"
minisign -Vq -p "$out/alice.pub" -m "$out/doc.md" -x "$out/doc_legacy.md.minisig"
echo "fixtures written to $out"
