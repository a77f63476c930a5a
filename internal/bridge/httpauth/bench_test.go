package httpauth

import (
	"context"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// BenchmarkJWT: a token's verification alone (check), and a request's
// resolution with the verified token kept (Resolve, the cache).
func BenchmarkJWT(b *testing.B) {
	rk := rsaKey(b)
	hs := hsOptions()
	rs := hsOptions()
	rs.Secret, rs.PublicKey, rs.Algorithms = nil, publicPEM(b, &rk.PublicKey), []string{"RS256"}
	for _, tt := range []struct {
		name string
		o    *JWTOptions
		tok  string
	}{
		{"HS256", hs, sign(b, jose.HS256, hmacSecret, "", validClaims())},
		{"RS256", rs, sign(b, jose.RS256, rk, "", validClaims())},
	} {
		r := mustNew(b, Options{JWT: tt.o})
		b.Run(tt.name+"/verify", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := r.jwt.check(context.Background(), tt.tok, t0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tt.name+"/cached", func(b *testing.B) {
			req := request("Bearer " + tt.tok)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Resolve(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
