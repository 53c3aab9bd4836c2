#!/bin/sh
# The certificate nginx serves (deploy/nginx.conf): DIR/fullchain.pem and its key DIR/privkey.pem.
# When both are there (real ones, mounted; or the ones made on an earlier start) they are kept;
# when neither is, a self-signed one is made for local use, for the names in TLS_NAMES (default
# localhost, 127.0.0.1 and ::1), valid a year, and made again when it has less than 30 days left
# (a self-signed one of this script's only: real ones are never touched). docker-compose.yml's
# one-shot service `certs` runs this before nginx starts; tests/server/test_hardening.py too.
#
#   deploy/tls-cert.sh DIR
set -eu

dir="${1:?usage: tls-cert.sh DIR}"
names="${TLS_NAMES:-DNS:localhost,IP:127.0.0.1,IP:::1}"
cert="$dir/fullchain.pem"
key="$dir/privkey.pem"
subject="Junqi self-signed"  # how this script knows its own certificates

if [ -s "$cert" ] && [ -s "$key" ]; then
    if openssl x509 -in "$cert" -noout -subject 2>/dev/null | grep -q "CN *= *$subject\$" \
        && ! openssl x509 -in "$cert" -noout -checkend 2592000 >/dev/null; then
        echo "tls-cert: the self-signed certificate in $dir expires within 30 days: a new one"
        rm -f "$cert" "$key"
    else
        echo "tls-cert: keeping the certificate in $dir"
        exit 0
    fi
fi
if [ -e "$cert" ] || [ -e "$key" ]; then
    # half a pair is a mistake to mend, not something to write over
    echo "tls-cert: $dir has only one of fullchain.pem and privkey.pem: add the other or remove it" >&2
    exit 1
fi

mkdir -p "$dir"
umask 077  # the key readable by its owner alone (nginx's master process, root, reads it)
work="$(mktemp -d "$dir/.tls-cert.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# an EC P-256 key: every browser takes it, and the handshake is cheaper than with RSA; a server
# certificate, not a CA's (browsers refuse a CA's certificate as a server's, even self-signed)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
    -subj "/CN=$subject" -addext "subjectAltName=$names" \
    -addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=critical,digitalSignature" \
    -addext "extendedKeyUsage=serverAuth" \
    -keyout "$work/privkey.pem" -out "$work/fullchain.pem" 2>"$work/openssl.log" \
    || { cat "$work/openssl.log" >&2; exit 1; }
chmod 644 "$work/fullchain.pem"
# the key first: the certificate's presence says both are in place
mv "$work/privkey.pem" "$key"
mv "$work/fullchain.pem" "$cert"
echo "tls-cert: made a self-signed certificate for $names in $dir (valid 365 days)"
