#!/usr/bin/env bash
# tls-certs.sh DIR: a run-style certificate for a service's own TLS tests
# (CONTRACT.md, "TLS and HTTP/2"): a throwaway CA (ca.pem) and a server
# certificate for 127.0.0.1 and localhost signed by it (cert.pem) with its
# PKCS#8 private key (key.pem), ECDSA P-256 as runner's run certificate. The
# CA's key is removed once it has signed. DIR must exist; nothing here is
# ever committed: tests call it on a temporary folder.
set -euo pipefail
dir=${1:?usage: tls-certs.sh DIR}
cd "$dir"
umask 077
openssl=${OPENSSL:-openssl}
ec="-newkey ec -pkeyopt ec_paramgen_curve:P-256"
# shellcheck disable=SC2086
"$openssl" req -x509 -new -nodes $ec -keyout ca-key.pem -out ca.pem \
  -days 1 -subj "/CN=runner services test CA" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
# shellcheck disable=SC2086
"$openssl" req -new -nodes $ec -keyout key.pem -out server.csr -subj "/CN=localhost" 2>/dev/null
printf '%s\n' 'subjectAltName=IP:127.0.0.1,DNS:localhost' 'extendedKeyUsage=serverAuth' \
  'keyUsage=critical,digitalSignature' 'basicConstraints=CA:FALSE' >server.ext
"$openssl" x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
  -days 1 -extfile server.ext -out cert.pem 2>/dev/null
rm -f ca-key.pem ca.srl server.csr server.ext
# req -nodes writes PKCS#8 ("BEGIN PRIVATE KEY") on OpenSSL 3; check, since
# the contract names PKCS#8 and some stacks read nothing else.
grep -q -- '-----BEGIN PRIVATE KEY-----' key.pem || { echo "tls-certs.sh: key.pem is not PKCS#8" >&2; exit 1; }
