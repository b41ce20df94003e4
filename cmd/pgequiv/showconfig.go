package main

import "github.com/pgequiv/pgequiv/config"

// configSettings lists every setting of c as key/value pairs for the
// admin console's SHOW CONFIG, from config's key table: defaults spelled
// out, passwords hidden.
func configSettings(c *config.Config) [][2]string {
	return c.Settings()
}
