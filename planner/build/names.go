package build

import "errors"

// ErrUnknownName marks a query naming a table or column the schema does
// not have, or naming one ambiguously: the engine refuses it as well, so
// the query would not run (where an unplanned function or syntax may be
// the planner's gap, not the query's fault).
var ErrUnknownName = errors.New("a name the schema does not resolve")

// nameErrf is errf for a name that does not resolve: it wraps
// ErrUnknownName.
func (b *builder) nameErrf(loc int32, format string, args ...any) error {
	e := b.errf(loc, format, args...).(*Error)
	e.Err = ErrUnknownName
	return e
}
