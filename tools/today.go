package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/tools/spec"
)

func todayTool() mcp.Tool {
	return mcp.NewTool("today",
		mcp.WithDescription("The current date, weekday and time in the server's time zone. Use it to answer questions relative to now (\"how long ago\", \"next week\")."),
		annotate("Today's date", true, false, true),
	)
}

func (h handlers) today(ctx context.Context, _ spec.TodayArgs) (spec.Today, string, error) {
	d := memory.TodayAt(h.svc.Now())
	return spec.Today{Date: d.Date, Weekday: d.Weekday, Datetime: d.Datetime, Timezone: d.Timezone}, d.Text() + ".", nil
}
