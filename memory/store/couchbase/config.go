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

// Config is how agentmem reaches its Couchbase cluster. Zero fields take
// their value from Defaults; the command line declares its flags over the
// same values.
type Config struct {
	URL        string // couchbase://host[,host], or couchbases://host for TLS
	CACert     string // PEM file of a self-managed cluster's CA, for couchbases://
	Username   string
	Password   string
	Bucket     string // must exist
	Scope      string // created by Setup
	Collection string // created by Setup
	Index      string // the scoped Search index, created by Setup
	Fusion     string // FusionRRF or FusionSum
	Durability string // none, majority, majority-persist or persist

	ConnectTimeout     time.Duration
	KVTimeout          time.Duration
	SearchTimeout      time.Duration
	TransactionTimeout time.Duration

	// Setup only: the Search index's partitions and replicas.
	IndexPartitions int
	IndexReplicas   int

	// Recipe names how the vectors are made beyond the embedder's ID
	// (memory.Recipe): recorded in the meta document with the embedder when
	// the collection is empty and when Reindex re-embeds it, and reported
	// by Store.Recipe, so that memories embedded by an earlier recipe can
	// be told apart. Their vectors are of the embedder's space: a store of
	// another recipe opens as it is.
	Recipe string
	// Logger receives gocb's logs. gocb's logger is process-wide: the last
	// Open or Setup with a Logger sets it. Nil leaves gocb silent.
	Logger *slog.Logger
}

// Defaults are the values of every field a Config leaves zero, declared
// once: Open and Setup apply them, and the command line shows them as its
// flags' defaults.
var Defaults = Config{
	URL:                "couchbase://localhost",
	Bucket:             "agentmem",
	Scope:              "agentmem",
	Collection:         "memories",
	Index:              "agentmem",
	Fusion:             FusionRRF,
	Durability:         "majority",
	ConnectTimeout:     10 * time.Second,
	KVTimeout:          2500 * time.Millisecond,
	SearchTimeout:      10 * time.Second,
	TransactionTimeout: 30 * time.Second,
	IndexPartitions:    1,
}

// withDefaults fills what c leaves zero from Defaults.
func (c Config) withDefaults() Config {
	d := Defaults
	for _, f := range []struct{ v, def *string }{
		{&c.URL, &d.URL}, {&c.Bucket, &d.Bucket}, {&c.Scope, &d.Scope}, {&c.Collection, &d.Collection},
		{&c.Index, &d.Index}, {&c.Fusion, &d.Fusion}, {&c.Durability, &d.Durability},
	} {
		if *f.v == "" {
			*f.v = *f.def
		}
	}
	for _, f := range []struct{ v, def *time.Duration }{
		{&c.ConnectTimeout, &d.ConnectTimeout}, {&c.KVTimeout, &d.KVTimeout},
		{&c.SearchTimeout, &d.SearchTimeout}, {&c.TransactionTimeout, &d.TransactionTimeout},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	if c.IndexPartitions <= 0 {
		c.IndexPartitions = d.IndexPartitions
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
