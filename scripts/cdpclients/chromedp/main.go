// Command chromedp does the clients' task (package task) with chromedp's
// remote allocator, as its users connect to a browser someone else runs.
package main

import (
	"context"

	"github.com/browser-coordinator/browser-coordinator/scripts/cdpclients/task"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

func main() {
	a := task.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), task.Timeout)
	defer cancel()
	actx, cancelAlloc := remote.NewAllocator(ctx, a.Endpoint)
	defer cancelAlloc()
	tab, closeTab := chromedp.NewContext(actx)
	defer closeTab()
	title, after, png, err := work(tab, a.Page)
	if err != nil {
		task.Fail(err)
	}
	task.Done(a, title, after, png)
}

func work(tab context.Context, page string) (title, after string, png []byte, err error) {
	if err = chromedp.Do(tab, chromedp.Navigate(page)); err != nil {
		return
	}
	if title, err = chromedp.Run(tab, chromedp.Title()); err != nil {
		return
	}
	if err = chromedp.Do(tab, chromedp.Click(chromedp.CSS("#b"))); err != nil {
		return
	}
	if _, err = chromedp.Run(tab, chromedp.Poll[bool](`document.getElementById('out').textContent.startsWith('Clicked')`)); err != nil {
		return
	}
	if after, err = chromedp.Run(tab, chromedp.Text(chromedp.CSS("#out"))); err != nil {
		return
	}
	png, err = chromedp.Run(tab, chromedp.CaptureScreenshot())
	return
}
