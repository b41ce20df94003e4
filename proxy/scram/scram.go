// Package scram is the server side of SCRAM-SHA-256 (RFC 5802, RFC 7677)
// without channel binding, as PostgreSQL's AUTH_REQ_SASL uses it: for
// database-free mode's clients and the admin console, which hold a
// password rather than relay an upstream's exchange.
package scram

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Mechanism is the SASL mechanism's name; Iterations PostgreSQL's
// default scram_iterations.
const (
	Mechanism  = "SCRAM-SHA-256"
	Iterations = 4096
)

// Secret is the verifier derived from the configured password, as
// PostgreSQL stores it: salt, iterations, StoredKey and ServerKey.
type Secret struct {
	salt      []byte
	storedKey []byte
	serverKey []byte
}

// NewSecret derives a Secret from password with a random salt.
func NewSecret(password string) (*Secret, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, Iterations, sha256.Size)
	if err != nil {
		return nil, err
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return &Secret{salt: salt, storedKey: stored[:], serverKey: hmacSHA256(salted, "Server Key")}, nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// ErrMalformed marks a malformed SCRAM exchange; a wrong password is
// ErrBadPassword.
var (
	ErrMalformed   = errors.New("malformed SCRAM message")
	ErrBadPassword = errors.New("password authentication failed")
)

// Exchange is one server-side SCRAM conversation with Secret.
type Exchange struct {
	Secret          *Secret
	clientFirstBare string
	serverFirst     string
	nonce           string
}

// First takes the client-first-message and returns the server-first.
func (x *Exchange) First(msg string) (string, error) {
	// gs2-header: "n,," (no channel binding) or "y,," (client could but
	// thinks the server cannot); "p=" asks for binding we did not offer.
	cb, rest, ok := strings.Cut(msg, ",")
	if !ok || (cb != "n" && cb != "y") {
		return "", fmt.Errorf("%w: channel binding is not offered", ErrMalformed)
	}
	authzid, bare, ok := strings.Cut(rest, ",")
	if !ok || authzid != "" {
		return "", fmt.Errorf("%w: authorization identity", ErrMalformed)
	}
	var clientNonce string
	for _, attr := range strings.Split(bare, ",") {
		if v, ok := strings.CutPrefix(attr, "r="); ok {
			clientNonce = v
		}
	}
	if clientNonce == "" {
		return "", fmt.Errorf("%w: no client nonce", ErrMalformed)
	}
	rnd := make([]byte, 18)
	if _, err := rand.Read(rnd); err != nil {
		return "", err
	}
	x.clientFirstBare = bare
	x.nonce = clientNonce + base64.StdEncoding.EncodeToString(rnd)
	x.serverFirst = fmt.Sprintf("r=%s,s=%s,i=%d", x.nonce, base64.StdEncoding.EncodeToString(x.Secret.salt), Iterations)
	return x.serverFirst, nil
}

// Final takes the client-final-message, checks the proof and returns the
// server-final-message.
func (x *Exchange) Final(msg string) (string, error) {
	withoutProof, proofAttr, ok := strings.Cut(msg, ",p=")
	if !ok {
		return "", fmt.Errorf("%w: no proof", ErrMalformed)
	}
	var nonce string
	for _, attr := range strings.Split(withoutProof, ",") {
		if v, ok := strings.CutPrefix(attr, "r="); ok {
			nonce = v
		}
	}
	if nonce != x.nonce {
		return "", fmt.Errorf("%w: nonce mismatch", ErrMalformed)
	}
	proof, err := base64.StdEncoding.DecodeString(proofAttr)
	if err != nil || len(proof) != sha256.Size {
		return "", fmt.Errorf("%w: proof", ErrMalformed)
	}
	authMessage := x.clientFirstBare + "," + x.serverFirst + "," + withoutProof
	sig := hmacSHA256(x.Secret.storedKey, authMessage)
	clientKey := make([]byte, sha256.Size)
	for i := range clientKey {
		clientKey[i] = proof[i] ^ sig[i]
	}
	stored := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(stored[:], x.Secret.storedKey) != 1 {
		return "", ErrBadPassword
	}
	return "v=" + base64.StdEncoding.EncodeToString(hmacSHA256(x.Secret.serverKey, authMessage)), nil
}
