/**
 * A self-signed certificate for `hooks.test` and 127.0.0.1 (valid for 100 years), for HTTPS servers
 * in tests. Nothing trusts it, which is the point: a client that checks certificates must refuse it.
 * Made with: openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
 *   -subj "/CN=hooks.test" -addext "subjectAltName=DNS:hooks.test,IP:127.0.0.1"
 */
export const selfSignedKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg41x+4Ok36L9/G5lt
VwNEGcjP1HrWrY4V19Okd8k62ROhRANCAATRWY9m/eYuxnRL68z3HfSD/YzgkajG
p6fm4V18riRvEvPvjJc+ka35uesaRVbekozVzOynyLBgloYF8ZUKIC3N
-----END PRIVATE KEY-----
`;

export const selfSignedCert = `-----BEGIN CERTIFICATE-----
MIIBnTCCAUSgAwIBAgIUUGEG60uEchytTXJWSgaXgNmgc1wwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKaG9va3MudGVzdDAgFw0yNjExMjIwMDAwMDFaGA8yMTI2MTAy
OTAwMDAwMVowFTETMBEGA1UEAwwKaG9va3MudGVzdDBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABNFZj2b95i7GdEvrzPcd9IP9jOCRqManp+bhXXyuJG8S8++Mlz6R
rfm56xpFVt6SjNXM7KfIsGCWhgXxlQogLc2jcDBuMB0GA1UdDgQWBBQn7bX5Tc8/
vTlTrub1jd7x1t5ZrTAfBgNVHSMEGDAWgBQn7bX5Tc8/vTlTrub1jd7x1t5ZrTAP
BgNVHRMBAf8EBTADAQH/MBsGA1UdEQQUMBKCCmhvb2tzLnRlc3SHBH8AAAEwCgYI
KoZIzj0EAwIDRwAwRAIgCFwFQ2NcuQlGCq3aGLTh+AB7Z9AHgU2iYHKbuR2PFMoC
IC/YsYgF78Po15zdH5/qVoLKuim6DdAc33LVfC/oK13h
-----END CERTIFICATE-----
`;
