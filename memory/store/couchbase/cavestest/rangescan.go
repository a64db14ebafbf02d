package cavestest

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/couchbase/gocbcore/v9/memd"
	"github.com/couchbaselabs/gocaves/mock"
	"github.com/couchbaselabs/gocaves/mock/mockdb"
)

// The server side of KV range scan (Couchbase Server 7.6), which gocaves
// predates, answered from the mock's own documents, so that gocb's range
// scan client (its requests, its decoding of the items) runs against
// something: RANGE_SCAN_CREATE (0xda) takes a JSON body naming the
// collection, the key range and a snapshot requirement, and returns a
// 16-byte scan id; RANGE_SCAN_CONTINUE (0xdb) returns up to the asked
// number of items, then status 0xa6 (more) or 0xa7 (complete);
// RANGE_SCAN_CANCEL (0xdc) drops the scan. A snapshot requirement whose
// vBucket UUID is not the vBucket's, or whose sequence number the vBucket
// has not reached, is refused (status 0xa8, or a temporary failure), as
// the server does: so a scan that is consistent with this Store's writes
// is checked against the tokens those writes returned.
const (
	cmdRangeScanCreate        = memd.CmdCode(0xda)
	cmdRangeScanContinue      = memd.CmdCode(0xdb)
	cmdRangeScanCancel        = memd.CmdCode(0xdc)
	statusRangeScanMore       = memd.StatusCode(0xa6)
	statusRangeScanComplete   = memd.StatusCode(0xa7)
	statusRangeScanVbUUIDDiff = memd.StatusCode(0xa8)
)

type rangeScans struct {
	mu   sync.Mutex
	byID map[string]*rangeScan
}

type rangeScan struct {
	keysOnly bool
	docs     []*mockdb.Document
}

type rangeScanCreate struct {
	Collection string `json:"collection"`
	KeyOnly    bool   `json:"key_only"`
	Range      *struct {
		Start     string `json:"start"`
		End       string `json:"end"`
		ExclStart string `json:"excl_start"`
		ExclEnd   string `json:"excl_end"`
	} `json:"range"`
	Snapshot *struct {
		VbUUID string `json:"vb_uuid"`
		SeqNo  uint64 `json:"seqno"`
	} `json:"snapshot_requirements"`
}

func (rs *rangeScans) hook(src mock.KvClient, pak *memd.Packet, _ time.Time, next func()) {
	if pak.Magic != memd.CmdMagicReq {
		next()
		return
	}
	switch pak.Command {
	case cmdRangeScanCreate:
		rs.create(src, pak)
	case cmdRangeScanContinue:
		rs.next(src, pak)
	case cmdRangeScanCancel:
		if len(pak.Extras) == 16 {
			rs.mu.Lock()
			delete(rs.byID, string(pak.Extras))
			rs.mu.Unlock()
		}
		Reply(src, pak, memd.StatusSuccess, nil, nil)
	default:
		next()
	}
}

func (rs *rangeScans) create(src mock.KvClient, pak *memd.Packet) {
	var req rangeScanCreate
	if err := json.Unmarshal(pak.Value, &req); err != nil || req.Range == nil {
		Reply(src, pak, memd.StatusInvalidArgs, nil, nil)
		return
	}
	cid, err := strconv.ParseUint(req.Collection, 16, 32)
	if req.Collection == "" {
		cid, err = 0, nil
	}
	bucket := src.SelectedBucket()
	if err != nil || bucket == nil {
		Reply(src, pak, memd.StatusInvalidArgs, nil, nil)
		return
	}
	vb := bucket.Store().GetVbucket(uint(pak.Vbucket))
	if vb == nil {
		Reply(src, pak, memd.StatusNotMyVBucket, nil, nil)
		return
	}
	if s := req.Snapshot; s != nil {
		state := vb.CurrentMetaState(0)
		if s.VbUUID != strconv.FormatUint(state.VbUUID, 10) {
			Reply(src, pak, statusRangeScanVbUUIDDiff, nil, nil)
			return
		}
		if s.SeqNo > state.CurrentSeqNo {
			Reply(src, pak, memd.StatusTmpFail, nil, nil)
			return
		}
	}
	all, err := vb.GetAll(0, uint(cid))
	if err != nil {
		Reply(src, pak, memd.StatusInternalError, nil, nil)
		return
	}
	scan := &rangeScan{keysOnly: req.KeyOnly, docs: inRange(Latest(all), req)}
	id := make([]byte, 16)
	rand.Read(id)
	rs.mu.Lock()
	rs.byID[string(id)] = scan
	rs.mu.Unlock()
	Reply(src, pak, memd.StatusSuccess, nil, id)
}

// Latest is the live version of every key of all (the mock keeps every
// version), in key order.
func Latest(all []*mockdb.Document) []*mockdb.Document {
	last := map[string]*mockdb.Document{}
	for _, d := range all {
		if old, ok := last[string(d.Key)]; !ok || d.SeqNo > old.SeqNo {
			last[string(d.Key)] = d
		}
	}
	var out []*mockdb.Document
	for _, d := range last {
		if !d.IsDeleted {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b *mockdb.Document) int { return bytes.Compare(a.Key, b.Key) })
	return out
}

func inRange(docs []*mockdb.Document, req rangeScanCreate) []*mockdb.Document {
	r := req.Range
	b := func(s string) []byte { v, _ := base64.StdEncoding.DecodeString(s); return v }
	return slices.DeleteFunc(docs, func(d *mockdb.Document) bool {
		k := d.Key
		switch {
		case r.Start != "" && bytes.Compare(k, b(r.Start)) < 0,
			r.ExclStart != "" && bytes.Compare(k, b(r.ExclStart)) <= 0,
			r.End != "" && bytes.Compare(k, b(r.End)) > 0,
			r.ExclEnd != "" && bytes.Compare(k, b(r.ExclEnd)) >= 0:
			return true
		}
		return false
	})
}

func (rs *rangeScans) next(src mock.KvClient, pak *memd.Packet) {
	if len(pak.Extras) != 28 {
		Reply(src, pak, memd.StatusInvalidArgs, nil, nil)
		return
	}
	id := string(pak.Extras[:16])
	limit := int(binary.BigEndian.Uint32(pak.Extras[16:]))
	rs.mu.Lock()
	scan := rs.byID[id]
	var batch []*mockdb.Document
	if scan != nil {
		n := len(scan.docs)
		if limit > 0 {
			n = min(n, limit)
		}
		batch, scan.docs = scan.docs[:n], scan.docs[n:]
		if len(scan.docs) == 0 {
			delete(rs.byID, id)
		}
	}
	rs.mu.Unlock()
	if scan == nil {
		Reply(src, pak, memd.StatusKeyNotFound, nil, nil)
		return
	}
	var val []byte
	for _, d := range batch {
		if !scan.keysOnly {
			val = binary.BigEndian.AppendUint32(val, d.Flags)
			val = binary.BigEndian.AppendUint32(val, 0)
			val = binary.BigEndian.AppendUint64(val, d.SeqNo)
			val = binary.BigEndian.AppendUint64(val, d.Cas)
			val = append(val, d.Datatype)
		}
		val = binary.AppendUvarint(val, uint64(len(d.Key)))
		val = append(val, d.Key...)
		if !scan.keysOnly {
			val = binary.AppendUvarint(val, uint64(len(d.Value)))
			val = append(val, d.Value...)
		}
	}
	flag := uint32(1) // documents
	if scan.keysOnly {
		flag = 0
	}
	status := statusRangeScanComplete
	if len(scan.docs) > 0 {
		status = statusRangeScanMore
	}
	Reply(src, pak, status, binary.BigEndian.AppendUint32(nil, flag), val)
}

// Reply answers req with status.
func Reply(src mock.KvClient, req *memd.Packet, status memd.StatusCode, extras, value []byte) {
	src.WritePacket(&memd.Packet{
		Magic:   memd.CmdMagicRes,
		Command: req.Command,
		Opaque:  req.Opaque,
		Status:  status,
		Extras:  extras,
		Value:   value,
	})
}
