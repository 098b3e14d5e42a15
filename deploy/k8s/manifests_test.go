// Package k8s holds the Kubernetes manifests of a cluster check (docs/cluster.md) and the test that
// validates them: every document decodes strictly into the Kubernetes API type its kind names (a
// misspelt or misplaced field fails), and the properties the docs promise hold (nothing exposed
// outside the cluster, no secret in a manifest, the partitions' Indexed Job agrees with the
// coordinator). No cluster is needed: this is the schema check the manifests get in CI.
package k8s

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// An object is one decoded document, with where it came from.
type object struct {
	where string // file#index
	kind  string
	meta  metav1.ObjectMeta
	value any // *corev1.Service, *appsv1.StatefulSet, ...
}

// decoders make the typed value of each kind the manifests may use.
var decoders = map[string]func() any{
	"v1/Namespace":                       func() any { return new(corev1.Namespace) },
	"v1/Service":                         func() any { return new(corev1.Service) },
	"v1/ConfigMap":                       func() any { return new(corev1.ConfigMap) },
	"apps/v1/StatefulSet":                func() any { return new(appsv1.StatefulSet) },
	"batch/v1/Job":                       func() any { return new(batchv1.Job) },
	"networking.k8s.io/v1/NetworkPolicy": func() any { return new(networkingv1.NetworkPolicy) },
}

func load(t *testing.T) []object {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests here (%v)", err)
	}
	var objs []object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			where := fmt.Sprintf("%s#%d", f, i)
			var head struct {
				APIVersion string            `json:"apiVersion"`
				Kind       string            `json:"kind"`
				Metadata   metav1.ObjectMeta `json:"metadata"`
			}
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				t.Fatalf("%s: not YAML: %v", where, err)
			}
			mk, ok := decoders[head.APIVersion+"/"+head.Kind]
			if !ok {
				t.Fatalf("%s: %s/%s is not a kind this test knows: add its API type to decoders", where, head.APIVersion, head.Kind)
			}
			v := mk()
			if err := yaml.UnmarshalStrict([]byte(doc), v); err != nil {
				t.Fatalf("%s: does not match the %s schema: %v", where, head.Kind, err)
			}
			objs = append(objs, object{where: where, kind: head.Kind, meta: head.Metadata, value: v})
		}
	}
	return objs
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestManifestsMatchTheSchema: every document is a known kind, decodes strictly, and lives in the
// namespace cmc.
func TestManifestsMatchTheSchema(t *testing.T) {
	objs := load(t)
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.kind]++
		if o.kind != "Namespace" && o.meta.Namespace != "cmc" {
			t.Errorf("%s: %s %q is in namespace %q, not cmc", o.where, o.kind, o.meta.Name, o.meta.Namespace)
		}
	}
	for _, k := range []string{"Namespace", "Service", "StatefulSet", "Job", "NetworkPolicy"} {
		if kinds[k] == 0 {
			t.Errorf("no %s among the manifests", k)
		}
	}
}

// TestStrictDecodingRefusesAMisspeltField: the check above would catch a typo (a test of the test).
func TestStrictDecodingRefusesAMisspeltField(t *testing.T) {
	doc := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  completionMod: Indexed\n"
	if err := yaml.UnmarshalStrict([]byte(doc), new(batchv1.Job)); err == nil {
		t.Fatal("a misspelt field decoded without error")
	}
}

// pods returns every pod template of the manifests, with its owner's place.
func pods(objs []object) map[string]*corev1.PodSpec {
	out := map[string]*corev1.PodSpec{}
	for _, o := range objs {
		switch v := o.value.(type) {
		case *appsv1.StatefulSet:
			out[o.where+" "+o.meta.Name] = &v.Spec.Template.Spec
		case *batchv1.Job:
			out[o.where+" "+o.meta.Name] = &v.Spec.Template.Spec
		}
	}
	return out
}

// TestNothingOpenOutsideTheCluster: services are ClusterIP, no pod uses the host's network or
// ports, and NATS and PostgreSQL each have a network policy admitting only cmc's pods.
func TestNothingOpenOutsideTheCluster(t *testing.T) {
	objs := load(t)
	guarded := map[string]bool{}
	for _, o := range objs {
		switch v := o.value.(type) {
		case *corev1.Service:
			if v.Spec.Type != corev1.ServiceTypeClusterIP {
				t.Errorf("%s: service %s is %q: keep it ClusterIP (reach it with kubectl port-forward)", o.where, o.meta.Name, v.Spec.Type)
			}
			if len(v.Spec.ExternalIPs) > 0 {
				t.Errorf("%s: service %s has external IPs", o.where, o.meta.Name)
			}
		case *networkingv1.NetworkPolicy:
			if len(v.Spec.Ingress) == 0 || len(v.Spec.Ingress[0].From) == 0 {
				t.Errorf("%s: policy %s admits everyone", o.where, o.meta.Name)
			}
			for _, r := range v.Spec.Ingress {
				for _, f := range r.From {
					if f.PodSelector == nil || f.PodSelector.MatchLabels["app.kubernetes.io/part-of"] != "cmc" || f.IPBlock != nil || f.NamespaceSelector != nil {
						t.Errorf("%s: policy %s admits more than cmc's pods", o.where, o.meta.Name)
					}
				}
			}
			guarded[v.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"]] = true
		}
	}
	for _, name := range []string{"nats", "postgres"} {
		if !guarded[name] {
			t.Errorf("no network policy guards %s", name)
		}
	}
	for where, p := range pods(objs) {
		if p.HostNetwork {
			t.Errorf("%s: uses the host's network", where)
		}
		for _, c := range p.Containers {
			for _, port := range c.Ports {
				if port.HostPort != 0 {
					t.Errorf("%s: container %s binds host port %d", where, c.Name, port.HostPort)
				}
			}
		}
	}
}

// secretKeys are the keys of the secret cmc-secrets that docs/cluster.md tells the user to create.
var secretKeys = []string{"nats-token", "postgres-password"}

// TestSecretsComeFromTheSecret: no manifest holds a secret: every credential reaches a container
// from cmc-secrets, by a key the docs tell the user to create, and no URL in an argument carries a
// password.
func TestSecretsComeFromTheSecret(t *testing.T) {
	objs := load(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cluster.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range secretKeys {
		if !bytes.Contains(doc, []byte("--from-literal="+k+"=")) {
			t.Errorf("docs/cluster.md does not say how to create the key %s of cmc-secrets", k)
		}
	}
	userinfo := regexp.MustCompile(`://[^/@\s]*:[^/@\s]*@`)
	for where, p := range pods(objs) {
		for _, c := range p.Containers {
			for _, e := range c.Env {
				secretish := regexp.MustCompile(`(?i)token|password|secret|creds`).MatchString(e.Name)
				if secretish && e.Value != "" {
					t.Errorf("%s: %s sets %s to a literal: take it from cmc-secrets", where, c.Name, e.Name)
				}
				if r := e.ValueFrom; r != nil && r.SecretKeyRef != nil {
					if r.SecretKeyRef.Name != "cmc-secrets" || !slices.Contains(secretKeys, r.SecretKeyRef.Key) {
						t.Errorf("%s: %s reads secret %s key %s, which the docs do not create", where, c.Name, r.SecretKeyRef.Name, r.SecretKeyRef.Key)
					}
				}
				if userinfo.MatchString(e.Value) {
					t.Errorf("%s: %s: %s holds a URL with a password", where, c.Name, e.Name)
				}
			}
			for _, a := range append(slices.Clone(c.Command), c.Args...) {
				if userinfo.MatchString(a) {
					t.Errorf("%s: %s: argument %q holds a URL with a password", where, c.Name, a)
				}
			}
		}
	}
}

// theCheck returns the check's Indexed Job and its worker container.
func theCheck(t *testing.T, objs []object) (*batchv1.Job, *corev1.Container) {
	t.Helper()
	for _, o := range objs {
		if j, ok := o.value.(*batchv1.Job); ok {
			for i, c := range j.Spec.Template.Spec.Containers {
				if c.Name == "worker" {
					return j, &j.Spec.Template.Spec.Containers[i]
				}
			}
		}
	}
	t.Fatal("no Job with a container named worker")
	return nil, nil
}

// flagValue returns the value after -name in args.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == "-"+name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// env returns the container's variable name, as a literal or as where it comes from.
func env(c *corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// TestTheCheckIsOnePartitionAPod: the Job is Indexed (its completion index is the partition,
// which cmcdap worker reads from JOB_COMPLETION_INDEX), runs as many pods at once as there are
// partitions, gives them one run id, restarts a partition that dies but not one that found a
// violation or was given a bad argument, and reaches NATS and PostgreSQL at their services.
func TestTheCheckIsOnePartitionAPod(t *testing.T) {
	objs := load(t)
	job, c := theCheck(t, objs)
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("the Job is not Indexed: its completion index must be the partition")
	}
	parts := flagValue(c.Args, "partitions")
	if s.Completions == nil || s.Parallelism == nil || fmt.Sprint(*s.Completions) != parts || fmt.Sprint(*s.Parallelism) != parts {
		t.Errorf("completions %v, parallelism %v and -partitions %q must agree (every partition runs at once: they meet at each level's barrier)", s.Completions, s.Parallelism, parts)
	}
	if len(c.Args) == 0 || c.Args[0] != "worker" {
		t.Errorf("the container runs %q, not cmcdap worker", c.Args)
	}
	if flagValue(c.Args, "partition") != "" || env(c, "JOB_COMPLETION_INDEX") != nil {
		t.Error("the partition must be the completion index Kubernetes sets, not a value of the manifest")
	}
	if flagValue(c.Args, "run") != "$(RUN_ID)" {
		t.Errorf("-run is %q, want $(RUN_ID)", flagValue(c.Args, "run"))
	}
	if e := env(c, "RUN_ID"); e == nil || e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || !strings.Contains(e.ValueFrom.FieldRef.FieldPath, "controller-uid") {
		t.Error("RUN_ID must be the Job's uid: the same for its pods, new for every Job")
	}
	if job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex < 1 {
		t.Error("a partition that dies must be started again in a new pod (restartPolicy Never, backoffLimitPerIndex)")
	}
	final := map[int32]bool{}
	if s.PodFailurePolicy != nil {
		for _, r := range s.PodFailurePolicy.Rules {
			if r.Action == batchv1.PodFailurePolicyActionFailJob && r.OnExitCodes != nil && r.OnExitCodes.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn {
				for _, v := range r.OnExitCodes.Values {
					final[v] = true
				}
			}
		}
	}
	if !final[1] || !final[2] {
		t.Error("exit 1 (a violation, stored) and 2 (a bad argument or build error) must end the Job, not start the partition again")
	}
	services := map[string]int32{}
	for _, o := range objs {
		if v, ok := o.value.(*corev1.Service); ok {
			for _, p := range v.Spec.Ports {
				services[fmt.Sprintf("%s.%s.svc:%d", o.meta.Name, o.meta.Namespace, p.Port)] = p.Port
			}
		}
	}
	natsURL := ""
	if e := env(c, "CMC_NATS_URL"); e != nil {
		natsURL = e.Value
	}
	for what, url := range map[string]string{"CMC_NATS_URL": natsURL, "-db": flagValue(c.Args, "db")} {
		hostPort := regexp.MustCompile(`://(?:[^@/]*@)?([^/]+)`).FindStringSubmatch(url)
		if hostPort == nil {
			t.Errorf("%s is %q: not a URL", what, url)
			continue
		}
		if _, ok := services[hostPort[1]]; !ok {
			t.Errorf("%s names %s, which no service of the manifests is", what, hostPort[1])
		}
	}
	for _, name := range []string{"CMC_NATS_TOKEN", "PGPASSWORD"} {
		if e := env(c, name); e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("%s must come from cmc-secrets", name)
		}
	}
}

// TestCheckpointsFitTheNATSVolume: the partitions keep their checkpoints in NATS (a pod's own
// disk dies with the pod, so a partition started again in a new pod would start from level 0),
// and their buckets, each limited to twice -checkpoint-max, fit in NATS's volume with at least a
// fifth of it left for the run's stream.
func TestCheckpointsFitTheNATSVolume(t *testing.T) {
	objs := load(t)
	_, c := theCheck(t, objs)
	if got := flagValue(c.Args, "checkpoint"); got != "nats" {
		t.Fatalf("-checkpoint is %q: want nats, so a partition's new pod finds its checkpoint", got)
	}
	max, err := resource.ParseQuantity(strings.TrimSuffix(flagValue(c.Args, "checkpoint-max"), "B"))
	if err != nil {
		t.Fatalf("-checkpoint-max %q: %v", flagValue(c.Args, "checkpoint-max"), err)
	}
	var volume *resource.Quantity
	for _, o := range objs {
		if s, ok := o.value.(*appsv1.StatefulSet); ok && o.meta.Name == "nats" {
			for _, v := range s.Spec.VolumeClaimTemplates {
				q := v.Spec.Resources.Requests[corev1.ResourceStorage]
				volume = &q
			}
		}
	}
	if volume == nil {
		t.Fatal("no volume for NATS's store")
	}
	job, _ := theCheck(t, objs)
	buckets := int64(*job.Spec.Completions) * (2*max.Value() + 1<<20)
	if buckets > volume.Value()*4/5 {
		t.Errorf("%d partitions' checkpoint buckets take %d bytes of NATS's %s volume: lower -checkpoint-max or enlarge the volume", *job.Spec.Completions, buckets, volume)
	}
}

// TestTheImageRunsTheWorker: the image's entry point is cmcdap and its user the pods' runAsUser
// (the build cache it warms is that user's).
func TestTheImageRunsTheWorker(t *testing.T) {
	job, _ := theCheck(t, load(t))
	b, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	if !strings.Contains(df, `ENTRYPOINT ["cmcdap"]`) {
		t.Error("the Dockerfile's entry point is not cmcdap")
	}
	sc := job.Spec.Template.Spec.SecurityContext
	if sc == nil || sc.RunAsUser == nil || !strings.Contains(df, fmt.Sprintf("USER %d", *sc.RunAsUser)) {
		t.Error("the pods' runAsUser and the Dockerfile's USER differ: the warm cache would not be theirs")
	}
}

// TestCmcdapTakesTheArguments runs this repository's cmcdap with the worker's arguments and
// environment as Kubernetes would give them (partition 0), but with NATS on a closed port: it must
// get as far as connecting, and say it cannot, naming the server. A misspelt flag, a model the
// package does not have or a bad -run would stop it before.
func TestCmcdapTakesTheArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmcdap and the worker")
	}
	_, c := theCheck(t, load(t))
	args := []string{"run", "./cmd/cmcdap"}
	for _, a := range c.Args {
		args = append(args, strings.ReplaceAll(a, "$(RUN_ID)", "3f2a1c9e-0b1d-4c3e-9f00-123456789abc"))
	}
	closed := "nats://127.0.0.1:1"
	args = append(args, "-db", filepath.Join(t.TempDir(), "traces.db"))
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join("..", "..") // the repository's module, whose package the manifest names
	cmd.Env = append(os.Environ(), "JOB_COMPLETION_INDEX=0", "CMC_NATS_URL="+closed, "CMC_NATS_TOKEN=t0ken", "PGPASSWORD=unused")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("cmcdap worker ran with no NATS to reach:\n%s", out)
	}
	if !strings.Contains(string(out), closed) || strings.Contains(string(out), "t0ken") {
		t.Fatalf("want an error that names %s (and not its token), got:\n%s", closed, out)
	}
}
