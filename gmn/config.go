package gmn

import (
	"errors"
	"fmt"
)

// Errors returned by the public API.
var (
	ErrConfig      = errors.New("gmn: invalid configuration")
	ErrGraph       = errors.New("gmn: invalid graph")
	ErrBatch       = errors.New("gmn: invalid batch")
	ErrFormat      = errors.New("gmn: malformed weights file")
	ErrVersion     = errors.New("gmn: unsupported weights file version")
	ErrChecksum    = errors.New("gmn: weights file checksum mismatch")
	ErrMismatch    = errors.New("gmn: weights do not match the model layout")
	ErrNonFinite   = errors.New("gmn: non-finite value")
	ErrNilRand     = errors.New("gmn: nil *rand.Rand")
	ErrTrainConfig = errors.New("gmn: invalid trainer configuration")
)

// EncoderKind selects how content-node strings are encoded.
type EncoderKind uint8

const (
	// EncoderNGram hashes the character 1-, 2- and 3-grams of "^text$"
	// into NGramBuckets buckets, averages their learned bucket vectors and
	// applies a linear layer with tanh. Cheap; the default.
	EncoderNGram EncoderKind = iota
	// EncoderCNN is the published design: the text's ASCII one-hot matrix
	// (CNNLen positions × 128 characters, truncated or zero-padded) goes
	// through a 1-D convolution, CNNBlocks residual blocks of two
	// convolutions, mean pooling over positions and a linear layer with tanh.
	EncoderCNN
)

// String names the encoder.
func (k EncoderKind) String() string {
	switch k {
	case EncoderNGram:
		return "ngram"
	case EncoderCNN:
		return "cnn"
	}
	return fmt.Sprintf("EncoderKind(%d)", uint8(k))
}

// Config describes a model. Zero fields other than NumTypes take defaults.
type Config struct {
	// NumTypes is the size of the node type-id vocabulary (required).
	// Type id NumTypes is reserved as the attribute-mask token.
	NumTypes int
	Hidden   int // node state width d (default 32)
	EdgeDim  int // edge-type embedding width (default 8)
	PosSteps int // random-walk steps K of the positional encoding (default 8)
	PosDim   int // positional state width (default 8)
	Steps    int // propagation steps T (default 3)
	GraphDim int // graph vector width (default 32)
	// Tau is the similarity temperature: similarity = exp(−‖g1−g2‖²/Tau)
	// (default 1).
	Tau          float64
	Encoder      EncoderKind
	NGramBuckets int // default 1024
	CNNLen       int // characters kept per string (default 64)
	CNNChannels  int // default 16
	CNNBlocks    int // residual blocks (default 1)
	CNNKernel    int // odd kernel width (default 3)
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Hidden, 32)
	def(&c.EdgeDim, 8)
	def(&c.PosSteps, 8)
	def(&c.PosDim, 8)
	def(&c.Steps, 3)
	def(&c.GraphDim, 32)
	def(&c.NGramBuckets, 1024)
	def(&c.CNNLen, 64)
	def(&c.CNNChannels, 16)
	def(&c.CNNBlocks, 1)
	def(&c.CNNKernel, 3)
	if c.Tau == 0 {
		c.Tau = 1
	}
	return c
}

func (c Config) validate() error {
	const limit = 1 << 16
	for _, f := range []struct {
		name   string
		v, min int
	}{
		{"NumTypes", c.NumTypes, 1}, {"Hidden", c.Hidden, 1}, {"EdgeDim", c.EdgeDim, 1},
		{"PosSteps", c.PosSteps, 1}, {"PosDim", c.PosDim, 1}, {"Steps", c.Steps, 1},
		{"GraphDim", c.GraphDim, 1}, {"NGramBuckets", c.NGramBuckets, 1}, {"CNNLen", c.CNNLen, 1},
		{"CNNChannels", c.CNNChannels, 1}, {"CNNBlocks", c.CNNBlocks, 0}, {"CNNKernel", c.CNNKernel, 1},
	} {
		if f.v < f.min || f.v > limit {
			return fmt.Errorf("%w: %s = %d", ErrConfig, f.name, f.v)
		}
	}
	if c.CNNKernel%2 == 0 {
		return fmt.Errorf("%w: CNNKernel %d is even", ErrConfig, c.CNNKernel)
	}
	if !(c.Tau > 0) || c.Tau > 1e6 {
		return fmt.Errorf("%w: Tau = %g", ErrConfig, c.Tau)
	}
	if c.Encoder > EncoderCNN {
		return fmt.Errorf("%w: encoder %v", ErrConfig, c.Encoder)
	}
	return nil
}
