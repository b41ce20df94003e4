package gmn

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
)

// Weights file layout (little endian):
//
//	magic    [8]byte  "PGEQGMN\x00"
//	version  uint32   (fileVersion)
//	config   14 × int64 (NumTypes, Hidden, EdgeDim, PosSteps, PosDim, Steps,
//	         GraphDim, Encoder, NGramBuckets, CNNLen, CNNChannels, CNNBlocks,
//	         CNNKernel, reserved 0) then Tau float64
//	nparams  uint32
//	per parameter: name length uint16, name, rows uint32, cols uint32,
//	         rows·cols float32 values, row-major
//	crc32    uint32   IEEE checksum of every preceding byte
//
// Weights are stored as float32 to halve the file; a loaded model therefore
// matches the saved one to float32 precision (relative error ≤ 2⁻²⁴).
const fileVersion = 1

var fileMagic = [8]byte{'P', 'G', 'E', 'Q', 'G', 'M', 'N', 0}

// maxFileWeights bounds what Load accepts before allocating.
const maxFileWeights = 1 << 26

// approxWeights estimates the number of weights New(cfg) allocates, in
// floating point so that absurd configurations cannot overflow.
func approxWeights(c Config) float64 {
	d, c2, k := float64(c.Hidden), float64(c.CNNChannels), float64(c.CNNKernel)
	w := float64(c.NumTypes+1)*d + 16*d*d + float64(c.EdgeDim)*(d+6) +
		(float64(c.PosSteps+c.PosDim)+d)*float64(c.PosDim) + d*float64(c.PosDim) +
		4*float64(c.GraphDim)*(d+float64(c.GraphDim))
	switch c.Encoder {
	case EncoderNGram:
		w += float64(c.NGramBuckets) * d
	case EncoderCNN:
		w += k*asciiSize*c2 + float64(c.CNNBlocks)*2*k*c2*c2 + c2*d
	}
	return w
}

// Save writes the model's configuration and weights to w.
func (m *Model) Save(w io.Writer) error {
	crc := crc32.NewIEEE()
	bw := bufio.NewWriter(io.MultiWriter(w, crc))
	c := m.cfg
	var buf []byte
	buf = append(buf, fileMagic[:]...)
	buf = binary.LittleEndian.AppendUint32(buf, fileVersion)
	for _, v := range []int{c.NumTypes, c.Hidden, c.EdgeDim, c.PosSteps, c.PosDim, c.Steps,
		c.GraphDim, int(c.Encoder), c.NGramBuckets, c.CNNLen, c.CNNChannels, c.CNNBlocks, c.CNNKernel, 0} {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(int64(v)))
	}
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(c.Tau))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(m.ps.Params())))
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	for _, p := range m.ps.Params() {
		r, cols := p.Val.Dims()
		buf = buf[:0]
		buf = binary.LittleEndian.AppendUint16(buf, uint16(len(p.Name)))
		buf = append(buf, p.Name...)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(r))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(cols))
		for _, v := range p.Val.RawMatrix().Data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(v)))
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return binary.Write(w, binary.LittleEndian, crc.Sum32())
}

// Load reads a model written by Save. It returns ErrFormat, ErrVersion,
// ErrChecksum or ErrMismatch (wrapped) when the file is not a valid
// weights file for this code's model layout.
func Load(r io.Reader) (*Model, error) {
	crc := crc32.NewIEEE()
	tr := io.TeeReader(bufio.NewReader(r), crc)
	read := func(n int) ([]byte, error) {
		b := make([]byte, n)
		if _, err := io.ReadFull(tr, b); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrFormat, err)
		}
		return b, nil
	}
	hdr, err := read(8 + 4 + 14*8 + 8 + 4)
	if err != nil {
		return nil, err
	}
	if [8]byte(hdr[:8]) != fileMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrFormat)
	}
	if v := binary.LittleEndian.Uint32(hdr[8:]); v != fileVersion {
		return nil, fmt.Errorf("%w: %d (want %d)", ErrVersion, v, fileVersion)
	}
	var f [14]int
	for i := range f {
		v := int64(binary.LittleEndian.Uint64(hdr[12+8*i:]))
		if v < 0 || v > 1<<20 {
			return nil, fmt.Errorf("%w: config field %d = %d", ErrFormat, i, v)
		}
		f[i] = int(v)
	}
	cfg := Config{NumTypes: f[0], Hidden: f[1], EdgeDim: f[2], PosSteps: f[3], PosDim: f[4], Steps: f[5],
		GraphDim: f[6], Encoder: EncoderKind(f[7]), NGramBuckets: f[8], CNNLen: f[9], CNNChannels: f[10],
		CNNBlocks: f[11], CNNKernel: f[12],
		Tau: math.Float64frombits(binary.LittleEndian.Uint64(hdr[12+14*8:]))}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if w := approxWeights(cfg); w > maxFileWeights {
		return nil, fmt.Errorf("%w: config implies about %.3g weights", ErrFormat, w)
	}
	// The weights are overwritten below; the seed only avoids a nil rng.
	m, err := New(cfg, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if m.NumWeights() > maxFileWeights {
		return nil, fmt.Errorf("%w: %d weights", ErrFormat, m.NumWeights())
	}
	params := m.ps.Params()
	if n := binary.LittleEndian.Uint32(hdr[12+15*8:]); int(n) != len(params) {
		return nil, fmt.Errorf("%w: %d parameters, model has %d", ErrMismatch, n, len(params))
	}
	for _, p := range params {
		b, err := read(2)
		if err != nil {
			return nil, err
		}
		name, err := read(int(binary.LittleEndian.Uint16(b)))
		if err != nil {
			return nil, err
		}
		if b, err = read(8); err != nil {
			return nil, err
		}
		rows, cols := int(binary.LittleEndian.Uint32(b)), int(binary.LittleEndian.Uint32(b[4:]))
		if pr, pc := p.Val.Dims(); string(name) != p.Name || rows != pr || cols != pc {
			return nil, fmt.Errorf("%w: file has %q %d×%d, model %q %d×%d", ErrMismatch, name, rows, cols, p.Name, pr, pc)
		}
		data, err := read(4 * rows * cols)
		if err != nil {
			return nil, err
		}
		w := p.Val.RawMatrix().Data
		for i := range w {
			v := float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: %s[%d]", ErrNonFinite, p.Name, i)
			}
			w[i] = v
		}
	}
	sum := crc.Sum32()
	b, err := read(4)
	if err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(b) != sum {
		return nil, ErrChecksum
	}
	return m, nil
}
