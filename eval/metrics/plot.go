package metrics

import (
	"errors"
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// NamedCurve is a ROC curve with the name its legend entry shows.
type NamedCurve struct {
	Name  string
	Curve Curve
}

// PlotSize is the width and height of the image PlotROC writes: 5 inches,
// which is 480 pixels at gonum/plot's 96 dpi.
const PlotSize = 5 * vg.Inch

// ErrNoCurves is returned by PlotROC when it is given nothing to draw.
var ErrNoCurves = errors.New("metrics: no ROC curves to plot")

// PlotROC draws the curves, the chance diagonal and a legend giving each
// curve's area to a PlotSize square PNG file at path, whatever path's
// extension.
func PlotROC(path string, curves ...NamedCurve) error {
	if len(curves) == 0 {
		return fmt.Errorf("plot %s: %w", path, ErrNoCurves)
	}
	p := plot.New()
	p.Title.Text = "ROC curve"
	p.X.Label.Text = "False positive rate"
	p.Y.Label.Text = "True positive rate"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Add(plotter.NewGrid())
	p.Legend.Top = false // curves hug the top-left corner; keep clear of it
	p.Legend.Left = false

	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return fmt.Errorf("plot %s: diagonal: %w", path, err)
	}
	diag.Color = color.Gray{Y: 128}
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(diag)

	for k, nc := range curves {
		if len(nc.Curve) == 0 {
			return fmt.Errorf("plot %s: curve %q: %w", path, nc.Name, ErrEmpty)
		}
		xys := make(plotter.XYs, len(nc.Curve))
		for i, pt := range nc.Curve {
			xys[i].X, xys[i].Y = pt.FPR, pt.TPR
		}
		// NewLine rejects NaN and infinite coordinates.
		l, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("plot %s: curve %q: %w", path, nc.Name, err)
		}
		l.Color = plotutil.Color(k)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (AUC %.3f)", nc.Name, nc.Curve.Area()), l)
	}

	wt, err := p.WriterTo(PlotSize, PlotSize, "png")
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if _, err := wt.WriteTo(f); err != nil {
		f.Close() // the write error is the one to report
		return fmt.Errorf("plot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}
