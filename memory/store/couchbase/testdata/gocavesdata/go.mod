module github.com/couchbaselabs/gocaves/mock/data

go 1.26
