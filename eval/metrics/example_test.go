package metrics_test

import (
	"fmt"

	"github.com/pgequiv/pgequiv/eval/metrics"
)

func ExampleAUC() {
	scores := []float64{0.1, 0.4, 0.35, 0.8}
	labels := []bool{false, false, true, true}
	auc, err := metrics.AUC(scores, labels)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("AUC %.2f\n", auc)
	// Output: AUC 0.75
}

func ExampleConfusion() {
	c, err := metrics.NewConfusion(
		[]bool{true, true, false, false}, // the judge's verdicts
		[]bool{true, false, true, false}, // the labels
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v precision %.2f recall %.2f F1 %.2f\n", c, c.Precision(), c.Recall(), c.F1())
	// Output: {TP:1 FP:1 TN:1 FN:1} precision 0.50 recall 0.50 F1 0.50
}
