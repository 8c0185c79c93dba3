/**
 * The emulator's media host certificate: a self-signed certificate for `media.emulator.test` and
 * 127.0.0.1 (valid for 100 years). Baileys uploads media over HTTPS to whatever host `media_conn`
 * names; only a process that loaded the trust preload (trust-preload.ts) trusts this certificate,
 * the product has no switch for it. A public constant on purpose, like the noise root.
 * Made with: openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
 *   -subj "/CN=media.emulator.test" -addext "subjectAltName=DNS:media.emulator.test,IP:127.0.0.1"
 */
export const MEDIA_HOST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgdvtOIVislZXuvs05
IhrWQ/ei3+sodT7Evb4V3R0sfGWhRANCAARyAQ+yYlql278+NvF6JOsWKQxYjWhL
FmcABxT8bmgaQf3q4w0ULtYfEsXgyZ8nue5Ak9no7+SZRvIDgQJ4xxKw
-----END PRIVATE KEY-----
`;

export const MEDIA_HOST_CERT = `-----BEGIN CERTIFICATE-----
MIIBuTCCAV+gAwIBAgIUf1wIdu090hQTvirrkG2ReOYWDnAwCgYIKoZIzj0EAwIw
HjEcMBoGA1UEAwwTbWVkaWEuZW11bGF0b3IudGVzdDAgFw0yNjExMjYwOTM1MjFa
GA8yMTI2MTEwMjA5MzUyMVowHjEcMBoGA1UEAwwTbWVkaWEuZW11bGF0b3IudGVz
dDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABHIBD7JiWqXbvz428Xok6xYpDFiN
aEsWZwAHFPxuaBpB/erjDRQu1h8SxeDJnye57kCT2ejv5JlG8gOBAnjHErCjeTB3
MB0GA1UdDgQWBBRd43LcEUYzoshay2YbxjGWdJTN6jAfBgNVHSMEGDAWgBRd43Lc
EUYzoshay2YbxjGWdJTN6jAPBgNVHRMBAf8EBTADAQH/MCQGA1UdEQQdMBuCE21l
ZGlhLmVtdWxhdG9yLnRlc3SHBH8AAAEwCgYIKoZIzj0EAwIDSAAwRQIhAIkUQg7Z
lqBKu7RpDZqxY5YW3wW7jJNjEHT/PaL5YNSnAiAXfnCRvkpWaVC0onT3CDxgugos
id8jrX88r7AsOMc0yg==
-----END CERTIFICATE-----
`;
