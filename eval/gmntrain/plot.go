package gmntrain

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// ErrNoSeries is returned by PlotCurves when there is nothing to draw.
var ErrNoSeries = errors.New("pipeline: no curves to plot")

// NamedSeries is one per-epoch curve; Panel 0 is the loss panel and 1 the
// AUC panel.
type NamedSeries struct {
	Name  string
	Panel int
	Y     []float64
}

// PlotCurves draws the series against the epoch number in two panels
// (training loss, held-out AUC) side by side into a PNG file.
func PlotCurves(path string, series []NamedSeries) error {
	panels := [2]*plot.Plot{plot.New(), plot.New()}
	panels[0].Title.Text = "Training loss (BCE)"
	panels[1].Title.Text = "Held-out AUC"
	drawn := 0
	for k, p := range panels {
		p.X.Label.Text = "epoch"
		p.Add(plotter.NewGrid())
		p.Legend.Top = k == 0
		i := 0
		for _, s := range series {
			if s.Panel != k || len(s.Y) == 0 {
				continue
			}
			xys := make(plotter.XYs, len(s.Y))
			for j, y := range s.Y {
				xys[j].X, xys[j].Y = float64(j+1), y
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return fmt.Errorf("plot %s: %s: %w", path, s.Name, err)
			}
			l.Color = plotutil.Color(i)
			l.Dashes = plotutil.Dashes(i)
			p.Add(l)
			p.Legend.Add(s.Name, l)
			i++
			drawn++
		}
	}
	if drawn == 0 {
		return fmt.Errorf("plot %s: %w", path, ErrNoSeries)
	}
	img := vgimg.New(10*vg.Inch, 4*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 4}
	for k, p := range panels {
		p.Draw(tiles.At(dc, k, 0))
	}
	w, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		w.Close()
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return w.Close()
}

// FormatCounts renders kind counts as "kind=n" sorted by kind.
func FormatCounts(c map[string]int) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s=%d", k, c[k])
	}
	return b.String()
}
