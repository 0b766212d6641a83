//go:build tools

// The Temporal CLI the project builds when no binary can be had otherwise (src/dev-server/go-install.ts): this
// module only pins its dependencies; `go build github.com/temporalio/cli/cmd/temporal` here builds it.
package tools

import _ "github.com/temporalio/cli/cmd/temporal"
