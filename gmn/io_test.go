package gmn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	for _, enc := range encoders {
		t.Run(enc.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			m, err := New(Config{NumTypes: testTypes, Encoder: enc}, rng)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := m.Save(&buf); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d weights, %d bytes", enc, m.NumWeights(), buf.Len())
			if buf.Len() > 4<<20 {
				t.Errorf("file is %d bytes, want ≤ 4 MiB", buf.Len())
			}
			l, err := Load(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if l.Config() != m.Config() {
				t.Errorf("config %+v, want %+v", l.Config(), m.Config())
			}
			for i, p := range m.ps.Params() {
				q := l.ps.Params()[i].Val.RawMatrix().Data
				for j, v := range p.Val.RawMatrix().Data {
					if q[j] != float64(float32(v)) {
						t.Fatalf("%s[%d] = %v, want float32(%v)", p.Name, j, q[j], v)
					}
				}
			}
			a, b := randomPlan(10, rng), randomPlan(12, rng)
			s1, _ := m.Score(a, b, nil)
			s2, err := l.Score(a, b, nil)
			const tol = 1e-5
			if err != nil || math.Abs(s1-s2) > tol {
				t.Errorf("score before %g after %g (err %v, tol %g)", s1, s2, err, tol)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	m, err := New(tinyConfig(EncoderNGram), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrFormat},
		{"magic", mutate(func(b []byte) []byte { b[0] = 'X'; return b }), ErrFormat},
		{"version", mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 9); return b }), ErrVersion},
		{"config", mutate(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[12:], 0); return b }), ErrFormat},
		{"shape", mutate(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[20:], 7); return b }), ErrMismatch},
		{"truncated", good[:len(good)-9], ErrFormat},
		{"payload", mutate(func(b []byte) []byte { b[len(b)-20] ^= 1; return b }), ErrChecksum},
	}
	for _, tc := range cases {
		if _, err := Load(bytes.NewReader(tc.data)); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// approxWeights must bound the real count from above (it gates allocation
// in Load) without being wildly loose.
func TestApproxWeights(t *testing.T) {
	for _, cfg := range []Config{
		{NumTypes: testTypes}, {NumTypes: testTypes, Encoder: EncoderCNN},
		tinyConfig(EncoderNGram), tinyConfig(EncoderCNN),
		{NumTypes: 200, Hidden: 64, GraphDim: 16, Encoder: EncoderCNN, CNNBlocks: 3, CNNChannels: 32},
	} {
		m, err := New(cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		got, real := approxWeights(m.Config()), float64(m.NumWeights())
		if got < real || got > 3*real {
			t.Errorf("%+v: estimate %g for %g weights, want within [1, 3]×", cfg, got, real)
		}
	}
}

func FuzzLoad(f *testing.F) {
	m, err := New(tinyConfig(EncoderCNN), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:200])
	f.Add([]byte("PGEQGMN\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Load(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Whatever loads must round-trip.
		var out bytes.Buffer
		if err := l.Save(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data[:out.Len()]) {
			t.Fatal("loaded model does not save back to the same bytes")
		}
	})
}
