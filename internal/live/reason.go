package live

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/strata-fleet/strata/internal/kube"
)

// fail records why the instance could not be read: the error, scrubbed of
// credentials (kube.Scrub: it is printed, logged and served), after what
// was being done, and its [Reason].
func (in *Instance) fail(doing string, err error) {
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		msg = "no answer from the API server before the deadline: " + msg
	}
	if doing != "" {
		msg = doing + ": " + msg
	}
	in.Error = kube.Scrub(msg)
	in.Reason = kube.Scrub(Reason(err))
}

// ctxErr says so when err is ctx's end: the deadline of the command
// (--live-timeout, a rollout's --timeout) passed before the API server
// answered.
func ctxErr(ctx context.Context, err error) error {
	// client-go's rate limiter gives up early, when its wait would pass
	// the deadline.
	early := strings.Contains(err.Error(), "would exceed context deadline")
	if (early || errors.Is(ctx.Err(), context.DeadlineExceeded)) && !errors.Is(err, context.DeadlineExceeded) {
		return deadlineError{err}
	}
	return err
}

// deadlineError is an error that the deadline's passing caused.
type deadlineError struct{ error }

func (e deadlineError) Unwrap() error        { return e.error }
func (e deadlineError) Is(target error) bool { return target == context.DeadlineExceeded }

// Reason is why a cluster could not be read, without what is the
// cluster's own (its name, its server's URL), so that the Argo CDs that
// fail alike are listed under one reason: the API server's own message,
// or what went wrong on the way to it.
func Reason(err error) string {
	var (
		status   apierrors.APIStatus
		redirect *kube.RedirectError
		noCtx    *contextError
		dns      *net.DNSError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		uerr     *url.Error
	)
	switch {
	case errors.As(err, &noCtx):
		return noCtx.reason
	case errors.As(err, &redirect):
		return "the API server redirected to another scheme, host or port: refused, as it would send the credentials there"
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer from the API server before the deadline"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &status) && status.Status().Message != "":
		return status.Status().Message
	case errors.As(err, &status):
		return fmt.Sprintf("the API server answered %d %s", status.Status().Code, status.Status().Reason)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection was reset"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the API server closed the connection before its answer ended"
	case errors.As(err, &dns):
		return "the API server's host is not found"
	case errors.As(err, &unknown):
		return "the API server's certificate is signed by an authority the kubeconfig does not trust"
	case errors.As(err, &hostname):
		return "the API server's certificate is not valid for its host"
	case errors.As(err, &invalid):
		return "the API server's certificate is not valid: " + invalid.Error()
	case errors.As(err, &uerr):
		return uerr.Err.Error()
	}
	return err.Error()
}

// contextError is a cluster the kubeconfig gives no context for.
type contextError struct {
	err    error
	reason string
}

func (e *contextError) Error() string { return e.err.Error() }
func (e *contextError) Unwrap() error { return e.err }

// Unreached is one reason why Argo CDs could not be read, and which.
type Unreached struct {
	Reason   string   `json:"reason"`
	Clusters []string `json:"clusters"`
}

// GroupUnreached groups the Argo CDs that could not be read by their reason,
// in the order of the first of each: one line per reason, however many
// clusters share it.
func GroupUnreached(ins []*Instance) []Unreached {
	var out []Unreached
	at := map[string]int{}
	for _, in := range ins {
		if in.Error == "" {
			continue
		}
		reason := in.Reason
		if reason == "" {
			reason = in.Error
		}
		i, ok := at[reason]
		if !ok {
			i = len(out)
			at[reason] = i
			out = append(out, Unreached{Reason: reason})
		}
		out[i].Clusters = append(out[i].Clusters, in.Cluster)
	}
	return out
}

// Names lists the clusters, the first few by name and how many more.
func (u Unreached) Names() string {
	const shown = 3
	if len(u.Clusters) <= shown+1 {
		return strings.Join(u.Clusters, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(u.Clusters[:shown], ", "), len(u.Clusters)-shown)
}
