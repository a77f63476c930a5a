package webhooksig

import (
	"crypto/hmac"
	"net/http"
)

// verifyShopify checks X-Shopify-Hmac-Sha256 = base64(HMAC-SHA256(secret,
// body)), standard alphabet, padded or not.
func verifyShopify(secret string, h http.Header, body []byte) error {
	v := header(h, hdrShopify)
	if v == "" {
		return missing(Shopify, hdrShopify)
	}
	got, err := decodeBase64(v)
	if err != nil {
		return fail(Shopify, hdrShopify, ErrInvalid, "signature is not base64")
	}
	if !hmac.Equal(got, sum256(secret, body)) {
		return mismatch(Shopify, hdrShopify)
	}
	return nil
}
