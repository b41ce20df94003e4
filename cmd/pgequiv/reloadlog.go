package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/pgequiv/pgequiv/config"
)

// reloadChanges lists what a reload changed, one "key: old -> new" per
// setting, in SHOW CONFIG's order and with its values (so secrets stay
// hidden: a changed password is "key: changed", its values never shown).
// Operators used to PgBouncer expect a reload to say what it changed
// rather than only that it happened (issue 37, item 6).
func reloadChanges(old, next *config.Config) []string {
	before := map[string]string{}
	for _, kv := range configSettings(old) {
		before[kv[0]] = kv[1]
	}
	var out []string
	seen, reported := map[string]bool{}, map[string]bool{}
	for _, kv := range configSettings(next) {
		seen[kv[0]] = true
		if o, ok := before[kv[0]]; !ok || o != kv[1] {
			out = append(out, fmt.Sprintf("%s: %s -> %s", kv[0], shown(o), shown(kv[1])))
			reported[kv[0]] = true
		}
	}
	for _, kv := range configSettings(old) {
		if !seen[kv[0]] { // a schema.databases entry that is gone
			out = append(out, fmt.Sprintf("%s: %s -> (removed)", kv[0], shown(kv[1])))
		}
	}
	oldSecrets := map[string]string{}
	for _, kv := range old.Secrets() {
		oldSecrets[kv[0]] = kv[1]
	}
	for _, kv := range next.Secrets() {
		// A secret set or cleared shows above as "" against (hidden);
		// one replaced by another (or a telemetry header's token, whose
		// names alone SHOW CONFIG shows) only here.
		if oldSecrets[kv[0]] != kv[1] && !reported[kv[0]] {
			out = append(out, kv[0]+": changed")
		}
	}
	return out
}

// shown is a setting's value in reloadChanges: as SHOW CONFIG shows it,
// "" where it is empty.
func shown(v string) string {
	if v == "" {
		return `""`
	}
	return v
}

// logReloaded is the log line of a successful reload.
func logReloaded(logger *slog.Logger, old, next *config.Config) {
	changes := reloadChanges(old, next)
	if len(changes) == 0 {
		logger.Info("config reloaded; nothing changed")
		return
	}
	logger.Info("config reloaded", "changed", strings.Join(changes, "; "))
}
