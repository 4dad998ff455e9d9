// Package cluster is dwcrawl's distributed mode on NATS JetStream.
package cluster
