// probe is the one program of the real node's test image (localhost/realnode-probe:local): a static
// binary, standard library only, so the image needs no base and no registry.
//
//	probe serve [PORT]  HTTP on PORT (8080): /healthz answers "ok", / answers "hello from <hostname>"
//	probe get URL       GET URL once and print the body; exit 1 unless the answer is 200
//	probe whoami        in-cluster config, as client-go reads it (KUBERNETES_SERVICE_HOST/PORT, the
//	                    mounted service-account token and CA): POST a SelfSubjectReview through the
//	                    kubernetes Service and print the username the API server authenticated
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

func main() {
	if len(os.Args) < 2 {
		fail("usage: probe serve [PORT] | get URL | whoami")
	}
	var err error
	switch os.Args[1] {
	case "serve":
		port := "8080"
		if len(os.Args) > 2 {
			port = os.Args[2]
		}
		err = serve(port)
	case "get":
		if len(os.Args) != 3 {
			fail("usage: probe get URL")
		}
		err = get(os.Args[2])
	case "whoami":
		err = whoami()
	default:
		fail("unknown command " + os.Args[1])
	}
	if err != nil {
		fail(err.Error())
	}
}

func fail(message string) {
	fmt.Fprintln(os.Stderr, "probe:", message)
	os.Exit(1)
}

func serve(port string) error {
	hostname, _ := os.Hostname()
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s\n", hostname)
	})
	// PID 1 gets no default signal handlers: exit on TERM/INT at once, so Pods delete quickly.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		os.Exit(0)
	}()
	listener, err := net.Listen("tcp", ":"+port)
	if err != nil {
		return err
	}
	fmt.Println("serving on", listener.Addr())
	return http.Serve(listener, mux)
}

func get(url string) error {
	client := http.Client{Timeout: 10 * time.Second}
	response, err := client.Get(url)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		return err
	}
	fmt.Print(string(body))
	if response.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, response.Status)
	}
	return nil
}

func whoami() error {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return fmt.Errorf("KUBERNETES_SERVICE_HOST/PORT not set: not in a cluster")
	}
	token, err := os.ReadFile(serviceAccountDir + "/token")
	if err != nil {
		return err
	}
	caPEM, err := os.ReadFile(serviceAccountDir + "/ca.crt")
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return fmt.Errorf("no certificate in %s/ca.crt", serviceAccountDir)
	}
	client := http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}},
	}
	body := []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	url := "https://" + net.JoinHostPort(host, port) + "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	request, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	request.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	request.Header.Set("Content-Type", "application/json")
	response, err := client.Do(request)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	answer, err := io.ReadAll(response.Body)
	if err != nil {
		return err
	}
	if response.StatusCode != http.StatusCreated && response.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", url, response.Status, answer)
	}
	var review struct {
		Status struct {
			UserInfo struct {
				Username string `json:"username"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	if err := json.Unmarshal(answer, &review); err != nil {
		return err
	}
	fmt.Printf("authenticated as %s via %s\n", review.Status.UserInfo.Username, url)
	return nil
}
