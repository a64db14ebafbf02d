package couchbase

import (
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/couchbase/gocb/v2"
)

// Fusion modes of Config.Fusion: how the server combines the text and
// vector rankings of a hybrid recall.
const (
	// FusionRRF asks the server for reciprocal-rank (or relative-score)
	// fusion, Couchbase Server 8.1 and later.
	FusionRRF = "rrf"
	// FusionSum leaves the server's default, the sum of the text score and
	// the weighted kNN score: what servers before 8.1 do.
	FusionSum = "sum"
)

// Config is how agentmem reaches its Couchbase cluster. The CLI embeds it,
// so every field is a flag and an environment variable.
type Config struct {
	URL        string `name:"couchbase-url" env:"AGENTMEM_COUCHBASE_URL" default:"couchbase://localhost" help:"Connection string: couchbase://host[,host] for a self-managed cluster, couchbases://host for TLS (Capella)."`
	CACert     string `name:"couchbase-ca-cert" env:"AGENTMEM_COUCHBASE_CA_CERT" type:"path" help:"PEM file of the CA that signed the cluster's certificate, for couchbases:// to a self-managed cluster (Capella's CA is built in)."`
	Username   string `name:"couchbase-username" env:"AGENTMEM_COUCHBASE_USERNAME" help:"Database user (on Capella: a database access credential)."`
	Password   string `name:"couchbase-password" env:"AGENTMEM_COUCHBASE_PASSWORD" help:"Password of the database user."`
	Bucket     string `name:"couchbase-bucket" env:"AGENTMEM_COUCHBASE_BUCKET" default:"agentmem" help:"Bucket that holds the memories; it must exist."`
	Scope      string `name:"couchbase-scope" env:"AGENTMEM_COUCHBASE_SCOPE" default:"agentmem" help:"Scope of the collection and the Search index (created by setup)."`
	Collection string `name:"couchbase-collection" env:"AGENTMEM_COUCHBASE_COLLECTION" default:"memories" help:"Collection of the memories (created by setup)."`
	Index      string `name:"couchbase-index" env:"AGENTMEM_COUCHBASE_INDEX" default:"agentmem" help:"Name of the scoped Search index (created by setup)."`
	Fusion     string `name:"couchbase-fusion" env:"AGENTMEM_COUCHBASE_FUSION" default:"rrf" enum:"rrf,sum" help:"Hybrid fusion on the server: rrf (Couchbase Server 8.1+, Capella) or sum (the server's sum of scores, before 8.1)."`
	Durability string `name:"couchbase-durability" env:"AGENTMEM_COUCHBASE_DURABILITY" default:"majority" enum:"none,majority,majority-persist,persist" help:"Durability of writes: none (a single-node cluster whose bucket has replicas), majority, majority-persist (persisted on the active node), persist (persisted on a majority)."`

	ConnectTimeout     time.Duration `name:"couchbase-connect-timeout" env:"AGENTMEM_COUCHBASE_CONNECT_TIMEOUT" default:"10s" help:"Time to connect and wait for the bucket and the Search service."`
	KVTimeout          time.Duration `name:"couchbase-kv-timeout" env:"AGENTMEM_COUCHBASE_KV_TIMEOUT" default:"2500ms" help:"Time for one key-value operation."`
	SearchTimeout      time.Duration `name:"couchbase-search-timeout" env:"AGENTMEM_COUCHBASE_SEARCH_TIMEOUT" default:"10s" help:"Time for one Search request."`
	TransactionTimeout time.Duration `name:"couchbase-transaction-timeout" env:"AGENTMEM_COUCHBASE_TRANSACTION_TIMEOUT" default:"30s" help:"Time for one remember or forget transaction, retries included."`

	// Setup only: the Search index's partitions and replicas.
	IndexPartitions int `name:"couchbase-index-partitions" env:"AGENTMEM_COUCHBASE_INDEX_PARTITIONS" default:"1" help:"Search index partitions (setup): about one per 1-5 million memories, at most the Search nodes' cores."`
	IndexReplicas   int `name:"couchbase-index-replicas" env:"AGENTMEM_COUCHBASE_INDEX_REPLICAS" default:"0" help:"Search index replicas (setup): 1 or more for failover; needs that many more Search nodes."`

	// Logger receives gocb's logs. gocb's logger is process-wide: the last
	// Open or Setup with a Logger sets it. Nil leaves gocb silent.
	Logger *slog.Logger `kong:"-"`
}

// withDefaults fills what a Config built in code leaves zero, so Open does
// not depend on the CLI's defaults.
func (c Config) withDefaults() Config {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&c.URL, "couchbase://localhost")
	def(&c.Bucket, "agentmem")
	def(&c.Scope, "agentmem")
	def(&c.Collection, "memories")
	def(&c.Index, "agentmem")
	def(&c.Fusion, FusionRRF)
	def(&c.Durability, "majority")
	dur := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	dur(&c.ConnectTimeout, 10*time.Second)
	dur(&c.KVTimeout, 2500*time.Millisecond)
	dur(&c.SearchTimeout, 10*time.Second)
	dur(&c.TransactionTimeout, 30*time.Second)
	if c.IndexPartitions <= 0 {
		c.IndexPartitions = 1
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if !strings.HasPrefix(c.URL, "couchbase://") && !strings.HasPrefix(c.URL, "couchbases://") {
		errs = append(errs, fmt.Errorf("couchbase-url %q must start with couchbase:// or couchbases://", c.URL))
	}
	if c.CACert != "" && !strings.HasPrefix(c.URL, "couchbases://") {
		errs = append(errs, fmt.Errorf("couchbase-ca-cert is set but couchbase-url %q is not couchbases:// (TLS)", c.URL))
	}
	if c.Username == "" {
		errs = append(errs, errors.New("couchbase-username is empty (AGENTMEM_COUCHBASE_USERNAME)"))
	}
	for _, n := range []struct {
		flag, v string
		re      *regexp.Regexp
	}{
		{"bucket", c.Bucket, bucketName},
		{"scope", c.Scope, collectionName},
		{"collection", c.Collection, collectionName},
		{"index", c.Index, indexName},
	} {
		if !n.re.MatchString(n.v) {
			errs = append(errs, fmt.Errorf("couchbase-%s %q is not a valid name (%s)", n.flag, n.v, n.re))
		}
	}
	if c.Fusion != FusionRRF && c.Fusion != FusionSum {
		errs = append(errs, fmt.Errorf("couchbase-fusion %q must be rrf or sum", c.Fusion))
	}
	if _, err := durability(c.Durability); err != nil {
		errs = append(errs, err)
	}
	if c.IndexReplicas < 0 || c.IndexReplicas > 3 {
		errs = append(errs, fmt.Errorf("couchbase-index-replicas %d must be between 0 and 3", c.IndexReplicas))
	}
	return errors.Join(errs...)
}

// Names as Couchbase Server accepts them.
var (
	bucketName     = regexp.MustCompile(`^[A-Za-z0-9_.%-]{1,100}$`)
	collectionName = regexp.MustCompile(`^[A-Za-z0-9-][A-Za-z0-9_%-]{0,250}$`)
	indexName      = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,99}$`)
)

func durability(s string) (gocb.DurabilityLevel, error) {
	switch s {
	case "none":
		return gocb.DurabilityLevelNone, nil
	case "majority":
		return gocb.DurabilityLevelMajority, nil
	case "majority-persist":
		return gocb.DurabilityLevelMajorityAndPersistOnMaster, nil
	case "persist":
		return gocb.DurabilityLevelPersistToMajority, nil
	}
	return 0, fmt.Errorf("couchbase-durability %q must be none, majority, majority-persist or persist", s)
}

// clusterOptions are the gocb options for c; c must be valid.
func (c Config) clusterOptions() (gocb.ClusterOptions, error) {
	dl, err := durability(c.Durability)
	if err != nil {
		return gocb.ClusterOptions{}, err
	}
	opts := gocb.ClusterOptions{
		Authenticator: gocb.PasswordAuthenticator{Username: c.Username, Password: c.Password},
		TimeoutsConfig: gocb.TimeoutsConfig{
			ConnectTimeout:    c.ConnectTimeout,
			KVTimeout:         c.KVTimeout,
			KVDurableTimeout:  max(c.KVTimeout, 10*time.Second),
			KVScanTimeout:     max(c.KVTimeout, 10*time.Second),
			SearchTimeout:     c.SearchTimeout,
			ManagementTimeout: max(c.SearchTimeout, 75*time.Second),
		},
		TransactionsConfig: gocb.TransactionsConfig{
			DurabilityLevel: dl,
			Timeout:         c.TransactionTimeout,
			// Transaction records go to the memories' own collection (they
			// are not indexed: the index maps type "memory" only), so a user
			// granted only this scope, as on Capella, can write.
			MetadataCollection: &gocb.TransactionKeyspace{
				BucketName: c.Bucket, ScopeName: c.Scope, CollectionName: c.Collection,
			},
		},
	}
	if c.CACert != "" {
		pem, err := os.ReadFile(c.CACert)
		if err != nil {
			return opts, fmt.Errorf("reading couchbase-ca-cert: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return opts, fmt.Errorf("couchbase-ca-cert %s holds no PEM certificate", c.CACert)
		}
		opts.SecurityConfig.TLSRootCAs = pool
	}
	return opts, nil
}

// keyspace names the collection for messages: bucket.scope.collection.
func (c Config) keyspace() string {
	return c.Bucket + "." + c.Scope + "." + c.Collection
}
