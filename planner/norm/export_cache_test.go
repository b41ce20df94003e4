package norm

// CheckCaches makes every normalization check its read index and its
// sort keys against fresh walks of the plan, until restore is called.
func CheckCaches() (restore func()) {
	saved := verifyCaches
	verifyCaches = true
	return func() { verifyCaches = saved }
}
