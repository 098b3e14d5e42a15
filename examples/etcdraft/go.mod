module github.com/cmc-go/cmc/examples/etcdraft

go 1.26.0

require (
	github.com/cmc-go/cmc v0.0.0
	go.etcd.io/raft/v3 v3.7.0
	google.golang.org/protobuf v1.36.11
)

require github.com/cespare/xxhash/v2 v2.3.0 // indirect

replace github.com/cmc-go/cmc => ../..
