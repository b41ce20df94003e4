package norm

import (
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// foldConstBytea: decode('616263', 'hex') ⇒ '\x616263'::bytea;
// encode('\x616263'::bytea, 'hex') ⇒ '616263'; the bytea literal
// spelled as PostgreSQL's hex output ('abc'::bytea ⇒ '\x616263'::bytea).
// The executor has no bytea values, so the formats are read here, only
// where the input is one PostgreSQL reads alike (hex: pairs of hex
// digits, nothing else; base64: Go's strict padded form, with no
// whitespace, and an encoding short of base64's 76-character lines):
// anything PostgreSQL would reject, or skips (whitespace), stays, and
// so does the escape format. A bytea's value does not follow the
// session's bytea_output (only its printing does, alike on both sides).
func foldConstBytea(e *plan.Expr) (*plan.Expr, bool) {
	if byteaLiteral(e) {
		canon, ok := exec.CanonicalLiteral(catalog.Bytes, "", e.Args[0].Value)
		if !ok || canon == e.Args[0].Value {
			return e, false
		}
		return byteaConst(canon), true
	}
	if e.Kind != plan.Func || len(e.Args) != 2 {
		return e, false
	}
	format, ok := textLiteral(e.Args[1])
	if !ok {
		return e, false
	}
	switch {
	case e.Name == "decode" && e.Typ == catalog.Bytes:
		s, ok := textLiteral(e.Args[0])
		if !ok {
			return e, false
		}
		var b []byte
		var err error
		switch format {
		case "hex":
			b, err = hex.DecodeString(s)
		case "base64":
			b, err = base64.StdEncoding.Strict().DecodeString(s)
			if strings.ContainsAny(s, " \t\r\n") {
				return e, false
			}
		default:
			return e, false
		}
		if err != nil {
			return e, false
		}
		return byteaConst(`\x` + hex.EncodeToString(b)), true
	case e.Name == "encode" && e.Typ == catalog.Text && byteaLiteral(e.Args[0]):
		canon, ok := exec.CanonicalLiteral(catalog.Bytes, "", e.Args[0].Args[0].Value)
		if !ok || !strings.HasPrefix(canon, `\x`) {
			return e, false
		}
		b, err := hex.DecodeString(canon[2:])
		if err != nil {
			return e, false
		}
		switch format {
		case "hex":
			return plan.NewConst(catalog.Text, hex.EncodeToString(b)), true
		case "base64":
			out := base64.StdEncoding.EncodeToString(b)
			if len(out) > 76 {
				return e, false // PostgreSQL breaks lines there
			}
			return plan.NewConst(catalog.Text, out), true
		}
	}
	return e, false
}

// byteaLiteral: CAST('…' AS bytea) of a text literal.
func byteaLiteral(a *plan.Expr) bool {
	return a.Kind == plan.Cast && a.Typ == catalog.Bytes && a.Value == "" && len(a.Args) == 1 &&
		a.Args[0].Kind == plan.Const && !a.Args[0].Null && a.Args[0].Typ == catalog.Text
}

func byteaConst(text string) *plan.Expr {
	return &plan.Expr{Kind: plan.Cast, Typ: catalog.Bytes, Args: []*plan.Expr{plan.NewConst(catalog.Text, text)}, Pos: -1}
}

// textLiteral is a non-NULL text constant's value.
func textLiteral(a *plan.Expr) (string, bool) {
	if a.Kind != plan.Const || a.Null || a.Typ != catalog.Text {
		return "", false
	}
	return a.Value, true
}
