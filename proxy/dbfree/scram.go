package dbfree

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

// SCRAM-SHA-256 (RFC 5802, RFC 7677) server side, without channel binding,
// as PostgreSQL's AUTH_REQ_SASL uses it.

const (
	scramMechanism  = "SCRAM-SHA-256"
	scramIterations = 4096
)

// scramSecret is the verifier derived from the configured password, as
// PostgreSQL stores it: salt, iterations, StoredKey and ServerKey.
type scramSecret struct {
	salt      []byte
	storedKey []byte
	serverKey []byte
}

func newSCRAMSecret(password string) (*scramSecret, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return nil, err
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return &scramSecret{salt: salt, storedKey: stored[:], serverKey: hmacSHA256(salted, "Server Key")}, nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// errSCRAM marks a malformed SCRAM exchange; a wrong password is
// errBadPassword.
var (
	errSCRAM       = errors.New("malformed SCRAM message")
	errBadPassword = errors.New("password authentication failed")
)

// scramExchange is one server-side SCRAM conversation.
type scramExchange struct {
	secret          *scramSecret
	clientFirstBare string
	serverFirst     string
	nonce           string
}

// first takes the client-first-message and returns the server-first.
func (x *scramExchange) first(msg string) (string, error) {
	// gs2-header: "n,," (no channel binding) or "y,," (client could but
	// thinks the server cannot); "p=" asks for binding we did not offer.
	cb, rest, ok := strings.Cut(msg, ",")
	if !ok || (cb != "n" && cb != "y") {
		return "", fmt.Errorf("%w: channel binding is not offered", errSCRAM)
	}
	authzid, bare, ok := strings.Cut(rest, ",")
	if !ok || authzid != "" {
		return "", fmt.Errorf("%w: authorization identity", errSCRAM)
	}
	var clientNonce string
	for _, attr := range strings.Split(bare, ",") {
		if v, ok := strings.CutPrefix(attr, "r="); ok {
			clientNonce = v
		}
	}
	if clientNonce == "" {
		return "", fmt.Errorf("%w: no client nonce", errSCRAM)
	}
	rnd := make([]byte, 18)
	if _, err := rand.Read(rnd); err != nil {
		return "", err
	}
	x.clientFirstBare = bare
	x.nonce = clientNonce + base64.StdEncoding.EncodeToString(rnd)
	x.serverFirst = fmt.Sprintf("r=%s,s=%s,i=%d", x.nonce, base64.StdEncoding.EncodeToString(x.secret.salt), scramIterations)
	return x.serverFirst, nil
}

// final takes the client-final-message, checks the proof and returns the
// server-final-message.
func (x *scramExchange) final(msg string) (string, error) {
	withoutProof, proofAttr, ok := strings.Cut(msg, ",p=")
	if !ok {
		return "", fmt.Errorf("%w: no proof", errSCRAM)
	}
	var nonce string
	for _, attr := range strings.Split(withoutProof, ",") {
		if v, ok := strings.CutPrefix(attr, "r="); ok {
			nonce = v
		}
	}
	if nonce != x.nonce {
		return "", fmt.Errorf("%w: nonce mismatch", errSCRAM)
	}
	proof, err := base64.StdEncoding.DecodeString(proofAttr)
	if err != nil || len(proof) != sha256.Size {
		return "", fmt.Errorf("%w: proof", errSCRAM)
	}
	authMessage := x.clientFirstBare + "," + x.serverFirst + "," + withoutProof
	sig := hmacSHA256(x.secret.storedKey, authMessage)
	clientKey := make([]byte, sha256.Size)
	for i := range clientKey {
		clientKey[i] = proof[i] ^ sig[i]
	}
	stored := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(stored[:], x.secret.storedKey) != 1 {
		return "", errBadPassword
	}
	return "v=" + base64.StdEncoding.EncodeToString(hmacSHA256(x.secret.serverKey, authMessage)), nil
}
